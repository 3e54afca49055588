package history_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// Hand-written traffic for table tests: configmaps in namespace "ns".

const host = "https://kube.example"

// cm returns a configmap as a list item carries it.
func cm(name, rv string) string { return cmUID(name, rv, "uid-"+name) }

// cmUID returns a configmap with the given UID.
func cmUID(name, rv, uid string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","uid":%q,"resourceVersion":%q},"data":{"k":"v"}}`, name, uid, rv)
}

// ev returns a watch frame carrying obj (a list item) with kind and apiVersion.
func ev(typ, obj string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"ConfigMap","apiVersion":"v1",%s}`, typ, obj[1:])
}

// bookmark returns a BOOKMARK frame; end marks the end of WatchList initial events.
func bookmark(rv string, end bool) string {
	ann := ""
	if end {
		ann = `,"annotations":{"k8s.io/initial-events-end":"true"}`
	}
	return fmt.Sprintf(`{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":%q%s}}}`, rv, ann)
}

// list returns a LIST page answer at rv; cont is the continue token it mints.
func list(query, rv, cont string, items ...string) cassette.Interaction {
	return get("/api/v1/namespaces/ns/configmaps?"+query, listBody(rv, cont, items...))
}

// listBody returns a LIST page body at rv.
func listBody(rv, cont string, items ...string) string {
	meta := fmt.Sprintf(`"resourceVersion":%q`, rv)
	if cont != "" {
		meta += fmt.Sprintf(`,"continue":%q,"remainingItemCount":1`, cont)
	}
	return fmt.Sprintf(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{%s},"items":[%s]}`, meta, strings.Join(items, ","))
}

// watch returns a watch answer whose body holds frames, one per line.
func watch(query string, frames ...string) cassette.Interaction {
	body := ""
	for _, f := range frames {
		body += f + "\n"
	}
	return get("/api/v1/namespaces/ns/configmaps?watch=true&"+query, body)
}

// get returns a 200 answer to a GET of path.
func get(path, body string) cassette.Interaction {
	return cassette.Interaction{Method: "GET", URL: host + path, Code: 200, Body: []byte(body)}
}

// recordedAt is when the hand-written recordings of these tests begin.
var recordedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// at returns i started sec seconds into the recording, answered in a second.
func at(i cassette.Interaction, sec int) cassette.Interaction {
	i.Started, i.Duration = recordedAt.Add(time.Duration(sec)*time.Second), time.Second
	return i
}

// file returns a cassette file at path holding ints.
func file(path string, ints ...cassette.Interaction) *cassette.File {
	return &cassette.File{Path: path, Interactions: ints}
}

// objs renders objects as "ns/a@5 ns/b@7".
func objs(os []*history.Object) string {
	var parts []string
	for _, o := range os {
		parts = append(parts, o.Key()+"@"+o.ResourceVersion)
	}
	return strings.Join(parts, " ")
}

// events renders events as "ADDED ns/c@11; DELETED ns/a@12".
func events(es []history.Event) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%s %s@%s", e.Type, e.Object.Key(), e.RV()))
	}
	return strings.Join(parts, "; ")
}
