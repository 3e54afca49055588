package oracle

import (
	"errors"

	"github.com/lwreplay/lwreplay/fuzz/internal/site"
)

// stackSite returns the site of a stack as runtime.Stack renders it.
func stackSite(stack string) string { return site.OfStack(stack) }

// siteError is an invariant's error that says where the target went
// wrong (see Signature).
type siteError struct {
	err  error
	site string
}

// Error returns the wrapped error's text.
func (e *siteError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *siteError) Unwrap() error { return e.err }

// withSite returns err carrying site (err itself when either is empty).
func withSite(err error, site string) error {
	if err == nil || site == "" {
		return err
	}
	return &siteError{err: err, site: site}
}

// siteOfErr returns the site err carries, "" when none.
func siteOfErr(err error) string {
	var se *siteError
	if errors.As(err, &se) {
		return se.site
	}
	return ""
}
