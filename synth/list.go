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

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// addListPages records with add a LIST at rv of n items, taken in order
// from item. It splits them into pages of size items (0: one page), with
// continue tokens shaped like kube-apiserver's. Only one page's items
// are held at a time.
func addListPages(add func(cassette.Interaction) error, res history.Resource, path, rv string, n int, item func() ([]byte, error), size int, start time.Time) error {
	if size <= 0 || size >= n {
		size = n
	}
	token := ""
	for from := 0; ; from += size {
		to := min(from+size, n)
		q := url.Values{}
		if token == "" {
			q.Set("resourceVersion", "0")
		} else {
			q.Set("continue", token)
		}
		if size < n {
			q.Set("limit", strconv.Itoa(size))
		}
		next := ""
		var remaining *int
		if to < n {
			next = base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%s,"start":"%d"}`, rv, to)))
			left := n - to
			remaining = &left
		}
		var body bytes.Buffer
		fmt.Fprintf(&body, `{"kind":"%sList","apiVersion":%q,"metadata":{"resourceVersion":%q`, res.Kind, res.GroupVersion(), rv)
		if next != "" {
			fmt.Fprintf(&body, `,"continue":%q,"remainingItemCount":%d`, next, *remaining)
		}
		body.WriteString(`},"items":[`)
		for k := from; k < to; k++ {
			it, err := item()
			if err != nil {
				return fmt.Errorf("LIST item %d: %w", k, err)
			}
			if k > from {
				body.WriteByte(',')
			}
			body.Write(it)
		}
		body.WriteString("]}")
		err := add(cassette.Interaction{
			Method: "GET", URL: collectionURL(path, q), Code: 200, Header: jsonHeader,
			Body: body.Bytes(), Started: start, Duration: time.Millisecond,
		})
		if err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		token = next
	}
}
