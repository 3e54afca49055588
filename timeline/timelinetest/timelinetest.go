// Package timelinetest reads back the pages timeline.Write renders, for
// tests that check what a page holds: its data and whether it reaches
// outside itself.
package timelinetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrPage is returned for a page that holds no readable timeline data.
var ErrPage = errors.New("timeline page")

// Page is a rendered page's data, as far as tests look.
type Page struct {
	// Kinds names the mark kinds; a mark's first element indexes it.
	Kinds []string `json:"kinds"`
	// Lanes are the page's lanes.
	Lanes []Lane `json:"lanes"`
	// Violation is the violation shown, if any.
	Violation *Violation `json:"violation"`
	// RVs are the resourceVersions of the RV axis; a mark's fourth
	// element indexes it (-1: none).
	RVs []string `json:"rvs"`
	// Recorded says some rows' marks carry recorded offsets.
	Recorded bool `json:"recorded"`
}

// Lane is one lane of a page.
type Lane struct {
	// Name labels it.
	Name string `json:"name"`
	// Rows are its rows.
	Rows []Row `json:"rows"`
}

// Row is one row of a lane.
type Row struct {
	// Name labels it.
	Name string `json:"name"`
	// Marks are [kind, type, at (ms), rv index, key, label, json index,
	// recorded offset (ms; -1: none)].
	Marks [][]any `json:"marks"`
	// Untimed says the marks have no time on the page's clock.
	Untimed bool `json:"untimed"`
}

// Mark is one mark of a page, read from its data.
type Mark struct {
	// ID is its position among the page's marks (lanes, rows, marks in
	// order): the id the page's drawing names it by (data-m).
	ID int
	// Lane and Row name where it is.
	Lane, Row string
	// Untimed is its row's.
	Untimed bool
	// Kind, Type, Key, Label and RV are as timeline.Mark's.
	Kind, Type, Key, Label, RV string
	// At and Recorded are in milliseconds (Recorded -1: none).
	At, Recorded float64
}

// Marks returns the page's marks, in order.
func (p Page) Marks() []Mark {
	var out []Mark
	for _, l := range p.Lanes {
		for _, r := range l.Rows {
			for _, m := range r.Marks {
				mk := Mark{ID: len(out), Lane: l.Name, Row: r.Name, Untimed: r.Untimed, Recorded: -1}
				if k, ok := m[0].(float64); ok && int(k) >= 0 && int(k) < len(p.Kinds) {
					mk.Kind = p.Kinds[int(k)]
				}
				mk.Type, _ = m[1].(string)
				mk.At, _ = m[2].(float64)
				if i, ok := m[3].(float64); ok && int(i) >= 0 && int(i) < len(p.RVs) {
					mk.RV = p.RVs[int(i)]
				}
				mk.Key, _ = m[4].(string)
				mk.Label, _ = m[5].(string)
				if len(m) > 7 {
					if rec, ok := m[7].(float64); ok {
						mk.Recorded = rec
					}
				}
				out = append(out, mk)
			}
		}
	}
	return out
}

// Violation is a page's violation.
type Violation struct {
	// At is its time in milliseconds.
	At float64 `json:"at"`
	// Broken and Diff are as timeline.Violation's.
	Broken []string `json:"broken"`
	Diff   []string `json:"diff"`
}

var dataScript = regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`)

// Parse returns the data of a rendered page.
func Parse(html string) (Page, error) {
	m := dataScript.FindStringSubmatch(html)
	if m == nil {
		return Page{}, fmt.Errorf("%w: no data script", ErrPage)
	}
	var p Page
	if err := json.Unmarshal([]byte(m[1]), &p); err != nil {
		return Page{}, fmt.Errorf("%w: data script: %v", ErrPage, err)
	}
	return p, nil
}

// Counts counts a page's marks by kind ("event") and by kind and type
// ("event ADDED", "request relist").
func (p Page) Counts() map[string]int {
	n := map[string]int{}
	for _, l := range p.Lanes {
		for _, r := range l.Rows {
			for _, m := range r.Marks {
				k, _ := m[0].(float64)
				typ, _ := m[1].(string)
				kind := "unknown"
				if int(k) >= 0 && int(k) < len(p.Kinds) {
					kind = p.Kinds[int(k)]
				}
				n[kind]++
				n[kind+" "+typ]++
			}
		}
	}
	return n
}

var refAttr = regexp.MustCompile(`(?i)\b(src|href|xlink:href)\s*=\s*["']?([^"'\s>]*)`)

// svgNS is the one URL a page may hold: the SVG namespace its script
// names, which is no fetch.
const svgNS = "http://www.w3.org/2000/svg"

// ExternalRefs returns what in html points outside the page. That is every
// src or href but a fragment, and every line with @import, url( or an
// http(s) URL other than the SVG namespace.
func ExternalRefs(html string) []string {
	var out []string
	for _, m := range refAttr.FindAllStringSubmatch(html, -1) {
		if !strings.HasPrefix(m[2], "#") {
			out = append(out, m[0])
		}
	}
	for _, line := range strings.Split(html, "\n") {
		rest := strings.ReplaceAll(line, svgNS, "")
		for _, s := range []string{"@import", "url(", "http://", "https://", "//fonts."} {
			if strings.Contains(rest, s) {
				out = append(out, strings.TrimSpace(line))
				break
			}
		}
	}
	return out
}

// DeliveryOrder pairs each delivery mark of p with the event marks of its
// key and resourceVersion (the truth's). It returns how many deliveries it
// paired. For each placed before the earliest of its events, it returns
// what. A mark's position is pos: its At, or where a drawing placed it.
// A mark without one is left out: an untimed row's, or a mark not drawn
// (ok false). So is a delivery of no event (an object of the initial
// state).
func (p Page) DeliveryOrder(pos func(Mark) (float64, bool)) (paired int, early []string) {
	marks := p.Marks()
	first := map[string]float64{}
	for _, m := range marks {
		if m.Kind != "event" {
			continue
		}
		x, ok := pos(m)
		if v, seen := first[m.Key+"@"+m.RV]; ok && (!seen || x < v) {
			first[m.Key+"@"+m.RV] = x
		}
	}
	for _, m := range marks {
		if m.Kind != "delivery" {
			continue
		}
		x, ok := pos(m)
		ev, served := first[m.Key+"@"+m.RV]
		if !ok || !served {
			continue
		}
		paired++
		if x < ev {
			early = append(early, fmt.Sprintf("%s at %v, its event at %v", m.Label, x, ev))
		}
	}
	return paired, early
}
