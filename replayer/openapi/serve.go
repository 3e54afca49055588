package openapi

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/munnerz/goautoneg"
)

// The media types kube-openapi's handlers offer: JSON and gnostic's
// protobuf (the deprecated name is answered with the current one).
const (
	subTypeJSON = "json"
	pbV2        = "com.github.proto-openapi.spec.v2.v1.0+protobuf"
	pbV2Old     = "com.github.proto-openapi.spec.v2@v1.0+protobuf"
	pbV3        = "com.github.proto-openapi.spec.v3.v1.0+protobuf"
	pbV3Old     = "com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// IsPath reports whether p is a path Serve answers: /openapi/v2,
// /openapi/v3 or below it.
func IsPath(p string) bool {
	return p == "/openapi/v2" || p == "/openapi/v3" || strings.HasPrefix(p, "/openapi/v3/")
}

// Serve answers r, whose path IsPath, as kube-apiserver 1.37 does:
//   - /openapi/v3: the index of the group version documents, each with the
//     hash of its ETag;
//   - /openapi/v3/<group version>: its document. A stale hash is
//     redirected (301) to the current one; the current one may be cached
//     for a year;
//   - /openapi/v2: the whole v2 document.
//
// Documents come as JSON or protobuf as Accept asks (406 for neither). An
// unknown group version is 404 with no body. If-None-Match with the ETag
// is 304.
func (d *Docs) Serve(w http.ResponseWriter, r *http.Request, now time.Time) {
	w.Header().Set("Cache-Control", "no-cache, private")
	switch p := r.URL.Path; {
	case p == "/openapi/v3":
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(d.index))
	case p == "/openapi/v2":
		x, err := d.v2()
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Add("Vary", "Accept")
		d.serveDoc(w, r, x, pbV2, pbV2Old, func() {})
	default:
		gv := strings.TrimPrefix(p, "/openapi/v3/")
		x, ok := d.v3[gv]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Add("Vary", "Accept")
		d.serveDoc(w, r, x, pbV3, pbV3Old, func() {
			hash := r.URL.Query().Get("hash")
			if hash == "" {
				return
			}
			if hash != x.etag {
				http.Redirect(w, r, "/openapi/v3/"+gv+"?hash="+x.etag, http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Cache-Control", "public, immutable")
			w.Header().Set("Expires", now.AddDate(1, 0, 0).Format(time.RFC1123))
		})
	}
}

// serveDoc writes x in the first media type of Accept it offers; hashed,
// called once the type is known, may answer instead (a redirect).
func (d *Docs) serveDoc(w http.ResponseWriter, r *http.Request, x *doc, pb, pbOld string, hashed func()) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		for _, sub := range []string{subTypeJSON, pb, pbOld} {
			if (c.Type != "application" && c.Type != "*") || (c.SubType != sub && c.SubType != "*") {
				continue
			}
			body, ct := x.json, "application/json"
			if sub != subTypeJSON {
				var err error
				if body, err = x.pb(); err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				ct = "application/" + pb
			}
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Etag", strconv.Quote(x.etag))
			hashed()
			if w.Header().Get("Location") != "" {
				return
			}
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
			return
		}
	}
	w.WriteHeader(http.StatusNotAcceptable)
}
