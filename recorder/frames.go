package recorder

import (
	"bytes"
	"encoding/json"

	"github.com/lwreplay/lwreplay/history"
)

// splitter finds complete JSON documents (watch frames) in a byte stream
// that arrives in pieces of any size. It tracks the nesting depth of braces
// and brackets outside strings. So a frame may hold newlines, braces inside
// strings and escaped quotes, and frames need no separator. Bytes between
// frames that start no object or array (whitespace, stray scalars) are
// skipped.
type splitter struct {
	depth int
	str   bool // inside a string
	esc   bool // after a backslash inside a string
}

// Events reported by splitter.next.
const (
	evNone  = iota // no event before the end of the input
	evStart        // a frame starts at the returned index
	evEnd          // a frame ends at the returned index (its last byte)
)

// next scans p from i and returns the index and kind of the next event,
// or (len(p), evNone) when the input ends first.
func (s *splitter) next(p []byte, i int) (int, int) {
	for i < len(p) {
		if s.str {
			i = s.skipString(p, i)
			continue
		}
		c := p[i]
		if !structural[c] {
			i++
			continue
		}
		switch c {
		case '"':
			s.str = s.depth > 0
		case '{', '[':
			s.depth++
			if s.depth == 1 {
				return i, evStart
			}
		case '}', ']':
			if s.depth > 0 {
				s.depth--
				if s.depth == 0 {
					return i, evEnd
				}
			}
		}
		i++
	}
	return i, evNone
}

// skipString consumes string content from p[i:] and returns the index
// after it: after the closing quote, or len(p) when the string goes on.
func (s *splitter) skipString(p []byte, i int) int {
	if s.esc {
		s.esc = false
		return i + 1
	}
	// most strings are short: look at a few bytes before searching
	for end := min(i+16, len(p)); i < end; i++ {
		switch p[i] {
		case '"':
			s.str = false
			return i + 1
		case '\\':
			s.esc = true
			return i + 1
		}
	}
	rest := p[i:]
	q := bytes.IndexByte(rest, '"')
	area := rest
	if q >= 0 {
		area = rest[:q]
	}
	if b := bytes.IndexByte(area, '\\'); b >= 0 {
		s.esc = true
		return i + b + 1
	}
	if q < 0 {
		return len(p)
	}
	s.str = false
	return i + q + 1
}

// structural marks the bytes the splitter acts on outside strings.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// inFrame reports whether a frame has started and not ended.
func (s *splitter) inFrame() bool { return s.depth > 0 }

// frameInfo is what the recorder needs to know of a watch frame.
type frameInfo struct {
	typ        history.EventType
	initialEnd bool // a BOOKMARK annotated k8s.io/initial-events-end: "true"
}

// classify reads a frame's event type, and for a bookmark whether it ends
// the initial events. kube-apiserver writes "type" first, which is read
// without decoding the frame. Other layouts are decoded.
func classify(frame []byte) frameInfo {
	typ, ok := leadingType(frame)
	if !ok {
		var we struct {
			Type history.EventType `json:"type"`
		}
		if json.Unmarshal(frame, &we) != nil {
			return frameInfo{}
		}
		typ = we.Type
	}
	fi := frameInfo{typ: typ}
	if typ == history.Bookmark {
		var bm struct {
			Object struct {
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if json.Unmarshal(frame, &bm) == nil {
			fi.initialEnd = bm.Object.Metadata.Annotations[history.InitialEventsEndAnnotation] == "true"
		}
	}
	return fi
}

// leadingType reads the type of a frame that starts {"type":"X".
func leadingType(frame []byte) (history.EventType, bool) {
	const prefix = `{"type":"`
	if !bytes.HasPrefix(frame, []byte(prefix)) {
		return "", false
	}
	rest := frame[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	switch t := history.EventType(rest[:end]); t {
	case history.Added, history.Modified, history.Deleted, history.Bookmark, history.Error:
		return t, true
	}
	return "", false
}

// frameRV returns the resourceVersion of a watch frame's object ("" for an
// ERROR frame or one without).
func frameRV(frame []byte) string {
	var we struct {
		Type   history.EventType `json:"type"`
		Object struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if json.Unmarshal(frame, &we) != nil || we.Type == history.Error {
		return ""
	}
	return we.Object.Metadata.ResourceVersion
}

// countItems counts the elements of the top-level "items" array of a list
// document without decoding it; ok is false when there is none.
func countItems(b []byte) (n int, ok bool) {
	depth := 0
	itemsKey := false // the last key read at depth 1 is "items"
	value := false    // at depth 1, after a colon: a value is due
	inItems := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			j := stringEnd(b, i+1)
			switch {
			case depth == 1 && !value:
				itemsKey = string(b[i+1:j]) == "items"
			case depth == 1:
				value = false
			case inItems && depth == 2:
				n++
			}
			i = j
		case c == ':' && depth == 1:
			value = true
		case c == '{' || c == '[':
			if depth == 1 && value && c == '[' && itemsKey {
				inItems = true
			} else if inItems && depth == 2 {
				n++
			}
			if depth == 1 {
				value = false
			}
			depth++
		case c == '}' || c == ']':
			depth--
			if inItems && depth == 1 {
				return n, true
			}
		case c == ',' || isSpace(c):
		default: // a byte of a number, true, false or null
			if depth == 1 {
				value = false
			}
			if inItems && depth == 2 && (b[i-1] == ',' || b[i-1] == '[' || isSpace(b[i-1])) {
				n++
			}
		}
	}
	return 0, false
}

// stringEnd returns the index of the quote that closes the string whose
// content starts at b[i:], or len(b).
func stringEnd(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i
		}
		i++
	}
	return len(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
