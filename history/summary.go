package history

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Summary describes a history: what lwreplay inspect prints.
type Summary struct {
	// Files are the cassette files, in load order.
	Files []string `json:"files"`
	// Span is the wall-clock time the recording covers (0 when untimed).
	Span time.Duration `json:"span"`
	// Resources has one entry per resource.
	Resources []ResourceSummary `json:"resources"`
	// Errors counts recorded errors not tied to a resource.
	Errors int `json:"errors"`
	// Discovery lists the recorded discovery paths.
	Discovery []string `json:"discovery,omitempty"`
}

// ResourceSummary describes one resource's log.
type ResourceSummary struct {
	// Resource is "configmaps.v1" or "deployments.v1.apps".
	Resource string `json:"resource"`
	// Kind is the object kind.
	Kind string `json:"kind"`
	// Namespaced is the resource's scope.
	Namespaced bool `json:"namespaced"`
	// InitialObjects and FinalObjects count the objects at the start and end.
	InitialObjects int `json:"initialObjects"`
	FinalObjects   int `json:"finalObjects"`
	// Events counts events by type (ADDED, MODIFIED, DELETED).
	Events map[EventType]int `json:"events"`
	// Inferred counts events inferred from a relist rather than watched.
	Inferred int `json:"inferred"`
	// Bookmarks counts recorded bookmarks.
	Bookmarks int `json:"bookmarks"`
	// FirstRV and LastRV bound the resourceVersions.
	FirstRV string `json:"firstRV"`
	LastRV  string `json:"lastRV"`
	// ListPages and WatchStreams count recorded requests.
	ListPages    int `json:"listPages"`
	WatchStreams int `json:"watchStreams"`
	// Errors holds the recorded errors, one line each.
	Errors []string `json:"errors,omitempty"`
}

// Summarize describes h.
func Summarize(h *History) Summary {
	s := Summary{Files: h.Files, Span: h.Span, Errors: len(h.Errors)}
	for p := range h.Discovery {
		s.Discovery = append(s.Discovery, p)
	}
	sortStrings(s.Discovery)
	for _, l := range h.Logs {
		rs := ResourceSummary{
			Resource: l.Resource.String(), Kind: l.Resource.Kind, Namespaced: l.Resource.Namespaced,
			InitialObjects: len(l.Initial), FinalObjects: len(l.StateAt(l.End())),
			Events: map[EventType]int{}, FirstRV: l.StartRV, LastRV: l.LastRV(),
			ListPages: l.Lists, WatchStreams: l.Watches,
		}
		for _, e := range l.Events {
			rs.Events[e.Type]++
			if e.From.File == "" {
				rs.Inferred++
			}
		}
		for _, m := range l.Marks {
			if m.Type == Bookmark {
				rs.Bookmarks++
			}
		}
		for _, e := range l.Errors {
			rs.Errors = append(rs.Errors, fmt.Sprintf("%s: %d %s: %s", e.From, e.Code, e.Reason, e.Message))
		}
		s.Resources = append(s.Resources, rs)
	}
	return s
}

// WriteText renders the summary as a table for people.
func (s Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "files:\t%v\n", s.Files)
	if s.Span > 0 {
		fmt.Fprintf(tw, "span:\t%s\n", s.Span.Round(time.Millisecond))
	} else {
		fmt.Fprintf(tw, "span:\tuntimed\n")
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "RESOURCE\tKIND\tSCOPE\tOBJECTS (START→END)\tADDED\tMODIFIED\tDELETED\tBOOKMARKS\tRV RANGE\tLIST PAGES\tWATCHES\tERRORS")
	for _, r := range s.Resources {
		scope := "cluster"
		if r.Namespaced {
			scope = "namespaced"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d→%d\t%d\t%d\t%d\t%d\t%s..%s\t%d\t%d\t%d\n", r.Resource, r.Kind, scope,
			r.InitialObjects, r.FinalObjects, r.Events[Added], r.Events[Modified], r.Events[Deleted],
			r.Bookmarks, r.FirstRV, r.LastRV, r.ListPages, r.WatchStreams, len(r.Errors))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range s.Resources {
		for _, e := range r.Errors {
			fmt.Fprintf(w, "error: %s: %s\n", r.Resource, e)
		}
	}
	if s.Errors > 0 {
		fmt.Fprintf(w, "errors not tied to a resource: %d\n", s.Errors)
	}
	if len(s.Discovery) > 0 {
		fmt.Fprintf(w, "discovery: %v\n", s.Discovery)
	}
	return nil
}
