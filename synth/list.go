package synth

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

func sortStrings(s []string) { sort.Strings(s) }

// addListPages records a LIST at rv, split into pages of size items (0: one
// page), with continue tokens shaped like kube-apiserver's.
func addListPages(f *cassette.File, res history.Resource, path, rv string, items [][]byte, size int, start time.Time) error {
	if size <= 0 || size >= len(items) {
		size = len(items)
	}
	token := ""
	for from := 0; ; from += size {
		to := min(from+size, len(items))
		q := url.Values{}
		if token == "" {
			q.Set("resourceVersion", "0")
		} else {
			q.Set("continue", token)
		}
		if size < len(items) {
			q.Set("limit", strconv.Itoa(size))
		}
		next := ""
		var remaining *int
		if to < len(items) {
			next = base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%s,"start":"%d"}`, rv, to)))
			n := len(items) - to
			remaining = &n
		}
		var body bytes.Buffer
		fmt.Fprintf(&body, `{"kind":"%sList","apiVersion":%q,"metadata":{"resourceVersion":%q`, res.Kind, res.GroupVersion(), rv)
		if next != "" {
			fmt.Fprintf(&body, `,"continue":%q,"remainingItemCount":%d`, next, *remaining)
		}
		body.WriteString(`},"items":[`)
		for k, it := range items[from:to] {
			if k > 0 {
				body.WriteByte(',')
			}
			body.Write(it)
		}
		body.WriteString("]}")
		f.Add(cassette.Interaction{
			Method: "GET", URL: collectionURL(path, q), Code: 200, Header: jsonHeader,
			Body: body.Bytes(), Started: start, Duration: time.Millisecond,
		})
		if next == "" {
			return nil
		}
		token = next
	}
}
