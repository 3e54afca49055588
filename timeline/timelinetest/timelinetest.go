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
	// Marks are [kind, type, at (ms), rv index, key, label, json index].
	Marks [][]any `json:"marks"`
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

// ExternalRefs returns what in html points outside the page: every src or
// href but a fragment, and every line with @import, url( or an http(s)
// URL other than the SVG namespace.
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
