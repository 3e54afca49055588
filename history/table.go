package history

import (
	"bytes"
	"strings"

	"github.com/lwreplay/lwreplay/cassette"
)

// tableGroup is the API group of the Table kind clients ask for when
// they print on the server's side (kubectl get): meta.k8s.io.
const tableGroup = "meta.k8s.io"

// RecordedTable is a recorded LIST answer in Table form (kubectl's
// server-side printing). It holds no objects the history can use: a row's
// object may be only metadata, or nothing. So it is not part of any log. A
// replayer serves it again, as recorded, to a request for the same page.
type RecordedTable struct {
	// From is where it was recorded.
	From Location
	// Request is the LIST request it answered.
	Request RequestInfo
	// IncludeObject is the request's includeObject parameter ("" when
	// absent).
	IncludeObject string
	// APIVersion is the Table's: meta.k8s.io/v1 or meta.k8s.io/v1beta1.
	APIVersion string
	// RV and Continue are the Table's metadata.resourceVersion and
	// metadata.continue.
	RV, Continue string
	// Body is the answer as recorded.
	Body []byte
}

// typeMeta is a document's kind and apiVersion.
type typeMeta struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		ResourceVersion string `json:"resourceVersion"`
		Continue        string `json:"continue"`
	} `json:"metadata"`
}

// isTable reports whether doc is a meta.k8s.io Table.
func isTable(tm typeMeta) bool {
	return tm.Kind == "Table" && strings.HasPrefix(tm.APIVersion, tableGroup+"/")
}

// tableAnswer reports whether i answered in Table form. Either its
// request asked for a Table first, or its answer (a LIST body, a watch
// stream's first event object) is one.
func tableAnswer(i cassette.Interaction, watch bool) bool {
	if accept := i.RequestHeader.Get("Accept"); accept != "" {
		first, _, _ := strings.Cut(accept, ",")
		if strings.Contains(first, "as=Table") {
			return true
		}
	}
	body := i.Body
	if watch {
		line, _, _ := bytes.Cut(body, []byte("\n"))
		return isTableFrame(line)
	}
	var tm typeMeta
	return decodeJSON(body, &tm) == nil && isTable(tm)
}

// isTableFrame reports whether a watch frame's object is a Table.
func isTableFrame(line []byte) bool {
	var ev struct {
		Object typeMeta `json:"object"`
	}
	return decodeJSON(line, &ev) == nil && isTable(ev.Object)
}

// recordedTable reads a LIST answer in Table form; ok is false when its
// body is not a Table.
func recordedTable(loc Location, q RequestInfo, includeObject string, body []byte) (RecordedTable, bool) {
	var tm typeMeta
	if decodeJSON(body, &tm) != nil || !isTable(tm) {
		return RecordedTable{}, false
	}
	return RecordedTable{
		From: loc, Request: q, IncludeObject: includeObject, APIVersion: tm.APIVersion,
		RV: tm.Metadata.ResourceVersion, Continue: tm.Metadata.Continue, Body: body,
	}, true
}
