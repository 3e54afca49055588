package cassette

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// blockShape is how go-vcr's YAML encoder (go.yaml.in/yaml/v4) writes a
// response body.
type blockShape int

const (
	// notLiteral: not as a literal block scalar written line by line (a
	// quoted scalar, a block with indicators, base64).
	notLiteral blockShape = iota
	// literalClip: a literal block "|": the body ends in one line break.
	literalClip
	// literalStrip: a literal block "|-": the body ends without one.
	literalStrip
)

// String names the shape.
func (s blockShape) String() string {
	switch s {
	case literalClip:
		return "literal"
	case literalStrip:
		return "literal-strip"
	}
	return "not-literal"
}

// literalShape reads body and says whether yaml.v4 writes it as a plain
// literal block, its lines indented and otherwise as they are. Following
// the encoder and its emitter, a body is so written when it is valid
// UTF-8 of at least 2 bytes holding a line break. It must hold only
// printable characters: tab, line feed, U+0020-U+007E, U+00A0-U+D7FF,
// U+E000-U+FFFD but U+FEFF. The check is stricter where the emitter adds
// indicators or other line breaks. Some bodies are not taken for one:
// those whose first byte is not a visible ASCII character (an indentation
// indicator, or no content), that end in two line breaks ("|+"), or that
// hold U+2028 or U+2029.
func literalShape(body *io.SectionReader) (blockShape, error) {
	size := body.Size()
	if size < 2 {
		return notLiteral, nil
	}
	r := io.NewSectionReader(body, 0, size)
	buf := make([]byte, 64<<10)
	carried := 0 // bytes of a rune cut by the end of the last chunk
	first, breaks := true, false
	var last, beforeLast byte
	for {
		n, err := r.Read(buf[carried:])
		if err != nil && !errors.Is(err, io.EOF) {
			return notLiteral, err
		}
		eof := err != nil
		chunk := buf[:carried+n]
		if first && len(chunk) > 0 {
			if c := chunk[0]; c <= ' ' || c > '~' {
				return notLiteral, nil
			}
			first = false
		}
		switch fresh := chunk[carried:]; len(fresh) {
		case 0:
		case 1:
			beforeLast, last = last, fresh[0]
		default:
			beforeLast, last = fresh[len(fresh)-2], fresh[len(fresh)-1]
		}
		rest := len(chunk)
		for i := 0; i < len(chunk); {
			c := chunk[i]
			if c < utf8.RuneSelf {
				switch {
				case c == '\n':
					breaks = true
				case c == '\t' || c >= ' ' && c <= '~':
				default:
					return notLiteral, nil
				}
				i++
				continue
			}
			if !eof && !utf8.FullRune(chunk[i:]) {
				rest = i
				break
			}
			ru, w := utf8.DecodeRune(chunk[i:])
			if !printableRune(ru) {
				return notLiteral, nil
			}
			i += w
		}
		if eof {
			break
		}
		carried = copy(buf, chunk[rest:])
	}
	switch {
	case !breaks:
		return notLiteral, nil
	case last != '\n':
		return literalStrip, nil
	case beforeLast == '\n':
		return notLiteral, nil
	}
	return literalClip, nil
}

// printableRune reports whether the emitter writes r unescaped in a block
// scalar without taking it for a line break.
func printableRune(r rune) bool {
	switch {
	case r == utf8.RuneError, r == 0x2028, r == 0x2029, r == 0xFEFF:
		return false
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD:
		return true
	}
	return false
}

// probeBody stands for a streamed body while its interaction is marshalled.
const probeBody = "lwreplay-streamed-body-probe\n"

// splitProbe finds in item the lines of the probe body written as a
// literal block. It returns what comes before them, their indentation and
// what comes after. ok is false when the probe is not written so.
func splitProbe(item []byte, probe string) (before []byte, indent string, after []byte, ok bool) {
	token := []byte(probeBody[:len(probeBody)-1])
	lines := bytes.Count([]byte(probe), token)
	if bytes.Count(item, token) != lines {
		return nil, "", nil, false
	}
	k := bytes.Index(item, token)
	start := bytes.LastIndexByte(item[:k], '\n') + 1
	indent = string(item[start:k])
	if start == 0 || strings.Trim(indent, " ") != "" {
		return nil, "", nil, false
	}
	header := "|\n"
	if lines == 2 {
		header = "|-\n"
	}
	if !bytes.HasSuffix(item[:start], []byte("body: "+header)) {
		return nil, "", nil, false
	}
	want := ""
	for range lines {
		want += indent + string(token) + "\n"
	}
	if !bytes.HasPrefix(item[start:], []byte(want)) {
		return nil, "", nil, false
	}
	return item[:start], indent, item[start+len(want):], true
}

// writeLiteralLines copies body to w as the lines of a literal block
// scalar. Each line but an empty one comes after indent. A body's last
// line is ended with a line break.
func writeLiteralLines(w io.Writer, indent string, body io.Reader) error {
	r := bufio.NewReaderSize(body, 64<<10)
	atStart := true
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			if atStart && chunk[0] != '\n' {
				if _, werr := io.WriteString(w, indent); werr != nil {
					return werr
				}
			}
			if _, werr := w.Write(chunk); werr != nil {
				return werr
			}
			atStart = chunk[len(chunk)-1] == '\n'
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			if !atStart {
				_, err := io.WriteString(w, "\n")
				return err
			}
			return nil
		default:
			return err
		}
	}
}
