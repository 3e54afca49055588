package timeline

import (
	"bytes"
	"cmp"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// ErrRender is returned when a timeline cannot be written.
var ErrRender = errors.New("timeline")

var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/timeline.css
	pageCSS string
	//go:embed assets/timeline.js
	pageJS string

	page = template.Must(template.New("page").Parse(pageHTML))
)

// data is what the page's script reads: marks as short arrays to keep
// the file small at 10,000 events.
type data struct {
	Title   string   `json:"title"`
	Ordinal bool     `json:"ordinal"`
	Kinds   []string `json:"kinds"`
	Lanes   []lane   `json:"lanes"`
	// RVs are the distinct resourceVersions, oldest first, for the RV
	// axis; a mark's r indexes it (-1: none).
	RVs       []string   `json:"rvs"`
	Violation *violation `json:"violation,omitempty"`
	// Recorded says some rows' marks carry recorded offsets: the page
	// offers the recorded axis.
	Recorded bool `json:"recorded,omitempty"`
}

type lane struct {
	Name string `json:"name"`
	Rows []row  `json:"rows"`
}

type row struct {
	Name string `json:"name"`
	// Marks are [kind, type, at (ms), rv index, key, label, json index,
	// recorded offset (ms; -1: none)].
	Marks [][8]any `json:"marks"`
	// Untimed says the marks' at is no time (Row.Untimed).
	Untimed bool `json:"untimed,omitempty"`
}

type violation struct {
	At     float64  `json:"at"`
	Broken []string `json:"broken"`
	Diff   []string `json:"diff"`
}

// Write renders t as one self-contained HTML page. order, when not nil,
// sorts the resourceVersions for the RV axis. Else they sort as numbers
// when all are decimal, by first appearance otherwise.
func Write(w io.Writer, t *Timeline, order *history.Order) error {
	d := data{Title: t.Title, Ordinal: t.Ordinal}
	for k := range Kind(len(kindNames)) {
		d.Kinds = append(d.Kinds, k.String())
	}
	rvIndex := rvIndexer(t, order)
	var blobs []string
	for _, l := range t.Lanes {
		dl := lane{Name: l.Name}
		for _, r := range l.Rows {
			dr := row{Name: r.Name, Marks: make([][8]any, 0, len(r.Marks)), Untimed: r.Untimed}
			d.Recorded = d.Recorded || r.Recorded
			for _, m := range r.Marks {
				j := -1
				if len(m.JSON) > 0 {
					j = len(blobs)
					blobs = append(blobs, string(m.JSON))
				}
				rec := -1.0
				if r.Recorded && m.Recorded >= 0 {
					rec = ms(m.Recorded)
				}
				dr.Marks = append(dr.Marks, [8]any{int(m.Kind), m.Type, ms(m.At), rvIndex.of(m.RV), m.Key, m.Label, j, rec})
			}
			dl.Rows = append(dl.Rows, dr)
		}
		d.Lanes = append(d.Lanes, dl)
	}
	d.RVs = rvIndex.list
	if v := t.Violation; v != nil {
		d.Violation = &violation{At: ms(v.At), Broken: v.Broken, Diff: v.Diff}
	}
	js, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRender, err)
	}
	bl, err := packBlobs(blobs)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRender, err)
	}
	// json.Marshal escapes <, > and &, so the data cannot end its script
	// element.
	err = page.Execute(w, struct {
		Title     string
		CSS       template.CSS
		JS        template.JS
		Data, Raw template.JS
	}{t.Title, template.CSS(pageCSS), template.JS(pageJS), template.JS(js), template.JS(bl)})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRender, err)
	}
	return nil
}

// packBlobs returns the objects' JSON, which is most of a page's weight,
// as a JSON string: the base64 of the gzipped JSON array of blobs. The
// page's script unpacks it with the browser's DecompressionStream; a
// 10,000-event history of pods shrinks about tenfold.
func packBlobs(blobs []string) ([]byte, error) {
	arr, err := json.Marshal(blobs)
	if err != nil {
		return nil, err
	}
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(arr); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(z.Bytes()))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// rankedRVs ranks resourceVersions for the RV axis.
type rankedRVs struct {
	m    map[string]int
	list []string
}

// of returns rv's rank, -1 for "".
func (r rankedRVs) of(rv string) int {
	if i, ok := r.m[rv]; ok {
		return i
	}
	return -1
}

// rvIndexer ranks every RV of t's marks.
func rvIndexer(t *Timeline, order *history.Order) rankedRVs {
	seen := map[string]bool{}
	var list []string
	numeric := true
	for _, l := range t.Lanes {
		for _, r := range l.Rows {
			for _, m := range r.Marks {
				if m.RV != "" && !seen[m.RV] {
					seen[m.RV] = true
					list = append(list, m.RV)
					numeric = numeric && decimal(m.RV)
				}
			}
		}
	}
	switch {
	case order != nil:
		slices.SortStableFunc(list, func(a, b string) int { c, _ := order.Compare(a, b); return c })
	case numeric:
		slices.SortFunc(list, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	}
	idx := rankedRVs{list: list, m: make(map[string]int, len(list))}
	for i, rv := range list {
		idx.m[rv] = i
	}
	return idx
}

// decimal reports whether s is a decimal integer without leading zeros.
func decimal(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
