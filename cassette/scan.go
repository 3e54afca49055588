package cassette

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v4"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// A cassette file is read interaction by interaction (scan), never as one
// YAML document. The lines of each item of the interactions sequence are
// decoded on their own. So memory follows the largest interaction, not the
// file. A response body in literal block style is not handed to the YAML
// decoder at all. (That is `body: |`, how go-vcr's encoder writes a watch
// stream's frames, one per line.) Its lines are taken as the block's
// content as they are read. With WithLazyBodies, a large one is left in
// the file and read when asked (Interaction.OpenBody). A file not laid out
// as go-vcr writes one (flow style, keys after the interactions) is
// decoded whole instead.

// lazyMin is the size from which WithLazyBodies leaves a body in its file.
var lazyMin int64 = 1 << 20

// errLayout says a file is not laid out as go-vcr writes one, so that it
// is decoded as one document instead.
var errLayout = errors.New("not in go-vcr's layout")

// scanner reads a cassette file's lines, knowing each line's offset.
type scanner struct {
	r    *bufio.Reader
	off  int64 // offset of the next line
	line int   // number of the next line, 1-based
	lazy bool
	file *fileStamp
	// a line read ahead (the first line after an item or a block)
	peeked          bool
	peek            []byte
	peekOff         int64
	peekLine        int
	peekLen         int64
	peekEOL         int
	interactionsEnd bool
}

// fileStamp identifies the file a lazy body is read back from.
type fileStamp struct {
	path string
	size int64
	mod  int64
}

// next returns the next line (with its line break), its offset, its
// number, its length in the file and the length of its line break. The
// last is 0 for a last line without one. With keep false, it reads past
// a line without keeping more of it than its first bufio buffer's worth.
// It returns io.EOF at the end.
func (s *scanner) next(keep bool) (text []byte, off int64, line int, n int64, eol int, err error) {
	if s.peeked {
		s.peeked = false
		return s.peek, s.peekOff, s.peekLine, s.peekLen, s.peekEOL, nil
	}
	off, line = s.off, s.line
	var buf []byte
	var last []byte
	for {
		frag, err := s.r.ReadSlice('\n')
		n += int64(len(frag))
		if keep || buf == nil {
			buf = append(buf, frag...)
		}
		if len(frag) > 0 {
			last = frag
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, 0, 0, 0, 0, err
		}
		if n == 0 {
			return nil, 0, 0, 0, 0, io.EOF
		}
		switch {
		case bytes.HasSuffix(last, []byte("\r\n")):
			eol = 2
		case bytes.HasSuffix(last, []byte("\n")):
			eol = 1
		}
		s.off += n
		s.line++
		return buf, off, line, n, eol, nil
	}
}

func (s *scanner) unread(text []byte, off int64, line int, n int64, eol int) {
	s.peeked, s.peek, s.peekOff, s.peekLine, s.peekLen, s.peekEOL = true, text, off, line, n, eol
}

// indentOf returns a line's indentation and its text without it and
// without the line break and trailing spaces.
func indentOf(line []byte) (int, []byte) {
	text := bytes.TrimRight(line, " \r\n")
	trimmed := bytes.TrimLeft(text, " ")
	return len(text) - len(trimmed), trimmed
}

// scanFile decodes the cassette at path interaction by interaction. It
// returns errLayout for a file it cannot read so; the caller decodes it
// whole. With salvage, a cut last interaction is dropped as Load's doc
// says.
func scanFile(path string, o loadOptions) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	s := &scanner{r: bufio.NewReaderSize(fh, 1<<20), line: 1, lazy: o.lazy,
		file: &fileStamp{path: path, size: st.Size(), mod: st.ModTime().UnixNano()}}
	var header bytes.Buffer
	for {
		text, _, _, _, _, err := s.next(true)
		if err == io.EOF {
			return nil, errLayout // no block sequence of interactions
		} else if err != nil {
			return nil, err
		}
		if ind, t := indentOf(text); ind == 0 && string(t) == "interactions:" && bytes.HasPrefix(text, []byte("interactions:")) {
			break
		}
		header.Write(text)
	}
	var head struct {
		Version any `yaml:"version"`
	}
	if err := yaml.Unmarshal(header.Bytes(), &head); err != nil || head.Version == nil {
		return nil, errLayout // let the whole-document decoder say what is wrong
	}
	if v, ok := head.Version.(int); !ok || v != vcr.CassetteFormatVersion {
		return nil, fmt.Errorf("%w: %s: go-vcr cassette format version %v; lwreplay reads version %d", ErrFormat, path, head.Version, vcr.CassetteFormatVersion)
	}
	f := &File{Path: path}
	indent := -1
	for n := 0; ; n++ {
		it, err := s.item(&indent)
		if err == io.EOF {
			return f, nil
		}
		if err == nil {
			var i Interaction
			i, err = it.decode()
			if err == nil {
				f.Interactions = append(f.Interactions, i)
				continue
			}
			err = fmt.Errorf("%w: %s: interaction %d (line %d): %w", ErrFormat, path, n, it.line, err)
		}
		if errors.Is(err, errLayout) {
			return nil, err
		}
		if o.salvage && (errors.As(err, new(truncation)) || isYAMLError(err)) {
			if _, _, _, _, _, nerr := s.next(false); nerr == io.EOF && !s.interactionsEnd {
				f.Damage = &Damage{Kept: len(f.Interactions), Dropped: 1, Cause: err}
				return f, nil
			}
		}
		return nil, err
	}
}

// rawItem is one item of the interactions sequence as read: its lines but
// those of a literal-block response body, which body holds.
type rawItem struct {
	line  int
	yaml  bytes.Buffer
	body  *blockBody
	stamp *fileStamp
}

// blockBody is a literal-block response body: its content, or (lazy) where
// its lines are in the file.
type blockBody struct {
	content  []byte // nil when lazy
	lazy     bool
	start    int64 // offset of the block's first line
	end      int64 // offset after its last content line
	indent   int   // the block's indentation
	chomp    byte  // 0 (clip), '-' (strip) or '+' (keep)
	trailing int   // blank lines after the last content line
	size     int64 // length of the content
	quoted   bool  // a single-quoted scalar on one line, not a block
}

// item reads the next item of the interactions sequence; io.EOF when the
// sequence has ended. indent is the sequence's indentation, learned from
// its first item.
func (s *scanner) item(indent *int) (*rawItem, error) {
	var it *rawItem
	section := ""
	for {
		text, off, line, n, eol, err := s.next(true)
		if err == io.EOF {
			if it == nil {
				return nil, io.EOF
			}
			return it, nil
		} else if err != nil {
			return nil, err
		}
		ind, t := indentOf(text)
		if len(t) == 0 || t[0] == '#' {
			if it != nil {
				it.yaml.Write(text)
			}
			continue
		}
		isItem := string(t) == "-" || bytes.HasPrefix(t, []byte("- "))
		switch {
		case *indent < 0 && isItem:
			*indent = ind
		case *indent < 0, ind < *indent, ind == *indent && !isItem:
			// The sequence has ended: what follows it is a layout this
			// scanner does not read.
			s.interactionsEnd = true
			return nil, errLayout
		}
		if ind == *indent && isItem {
			if it != nil {
				s.unread(text, off, line, n, eol)
				return it, nil
			}
			it = &rawItem{line: line, stamp: s.file}
			section = ""
		}
		if ind == *indent+2 {
			section = string(t)
		}
		if b := quotedBody(ind, t, *indent, text, off); b != nil && s.lazy && section == "response:" && it.body == nil {
			it.body = b
			it.yaml.Write(text[:ind])
			it.yaml.WriteString("body: \"\"\n")
			continue
		}
		if chomp, ok := literalBody(ind, t, *indent); ok && section == "response:" && it.body == nil {
			body, err := s.block(ind, chomp)
			if err != nil {
				return nil, err
			}
			it.body = body
			it.yaml.Write(text[:ind])
			it.yaml.WriteString("body: \"\"\n")
			continue
		}
		it.yaml.Write(text)
	}
}

// quotedBody returns the lazy body of a response's `body: '...'` written on
// one line, of lazyMin bytes or more. (go-vcr's encoder writes a one-line
// document so.) It returns nil for any other line.
func quotedBody(ind int, t []byte, item int, line []byte, off int64) *blockBody {
	const key = "body: '"
	if ind != item+4 || int64(len(t)) < lazyMin || len(t) < len(key)+1 || !bytes.HasPrefix(t, []byte(key)) || t[len(t)-1] != '\'' {
		return nil
	}
	content := t[len(key) : len(t)-1]
	quotes := 0
	for k := 0; k < len(content); k++ {
		if content[k] != '\'' {
			continue
		}
		if k+1 == len(content) || content[k+1] != '\'' {
			return nil // a lone quote: not one scalar
		}
		k++
		quotes++
	}
	start := off + int64(ind+len(key))
	return &blockBody{lazy: true, quoted: true, start: start, end: start + int64(len(content)), size: int64(len(content) - quotes)}
}

// literalBody reports whether a line of indentation ind and text t is a
// response's `body: |` (or `|-`, `|+`). It must be at the indentation
// go-vcr gives a response's fields: the item's + 4. It returns its
// chomping indicator.
func literalBody(ind int, t []byte, item int) (byte, bool) {
	if ind != item+4 {
		return 0, false
	}
	switch string(t) {
	case "body: |":
		return 0, true
	case "body: |-":
		return '-', true
	case "body: |+":
		return '+', true
	}
	return 0, false
}

// block reads the lines of a literal block whose key is at indentation k:
// the lines indented deeper, and blank lines among them. With the
// scanner's lazy option, a block of lazyMin bytes or more is left in the
// file: only where it is, is kept.
func (s *scanner) block(k int, chomp byte) (*blockBody, error) {
	b := &blockBody{chomp: chomp, indent: -1, start: s.off}
	if s.peeked {
		b.start = s.peekOff
	}
	var content bytes.Buffer
	blank := 0   // blank lines not yet known to be inside the block
	lastEOL := 0 // the line break of the last content line
	for {
		text, off, line, n, eol, err := s.next(!b.lazy)
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		ind, t := indentOf(text)
		if len(t) == 0 && int64(len(text)) == n && (b.indent < 0 || len(text)-eol <= b.indent) {
			blank++ // spaces beyond the indentation would be content
			continue
		}
		if len(t) > 0 && (ind <= k || (b.indent >= 0 && ind < b.indent)) {
			if int64(len(text)) != n {
				return nil, errLayout // a key line too long to keep: decode whole
			}
			s.unread(text, off, line, n, eol)
			break
		}
		if b.indent < 0 {
			b.indent = ind
		}
		for ; blank > 0; blank-- {
			if !b.lazy {
				content.WriteByte('\n')
			}
			b.size++
		}
		b.size += n - int64(eol) - int64(b.indent) + 1
		b.end, lastEOL = off+n, eol
		if !b.lazy {
			content.Write(text[b.indent : len(text)-eol])
			content.WriteByte('\n')
			b.lazy = s.lazy && b.size >= lazyMin
		}
	}
	b.trailing = blank
	if b.chomp != '+' {
		b.trailing = 0
	}
	// The last line's break is content unless chomped ('-') or missing
	// (the file ends on that line); '+' keeps the blank lines after it.
	cut := b.indent >= 0 && (b.chomp == '-' || lastEOL == 0)
	switch {
	case b.indent < 0: // no content: the block is empty (or blank lines)
		b.lazy, b.size, b.end = false, int64(b.trailing), b.start
	case cut:
		b.size--
	}
	b.size += int64(b.trailing)
	if !b.lazy {
		c := content.Bytes()
		if cut {
			c = c[:len(c)-1]
		}
		c = append(c, bytes.Repeat([]byte("\n"), b.trailing)...)
		if c == nil {
			c = []byte{}
		}
		b.content = c
	}
	return b, nil
}

// yamlLine finds the line numbers in a YAML error about one item.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// decode decodes an item's YAML and takes its body.
func (it *rawItem) decode() (Interaction, error) {
	var doc struct {
		Interactions []*vcr.Interaction `yaml:"interactions"`
	}
	src := append([]byte("interactions:\n"), it.yaml.Bytes()...)
	if err := unmarshalItem(src, &doc); err != nil {
		// Say the lines of the file, not of the item.
		msg := yamlLine.ReplaceAllStringFunc(err.Error(), func(m string) string {
			n, _ := strconv.Atoi(m[len("line "):])
			return fmt.Sprintf("line %d", n-2+it.line)
		})
		return Interaction{}, yamlError{errors.New(msg)}
	}
	if len(doc.Interactions) != 1 {
		return Interaction{}, errLayout
	}
	vi := doc.Interactions[0]
	if vi == nil {
		return Interaction{}, errors.New("empty")
	}
	i, err := fromVCR(vi)
	if err != nil || it.body == nil {
		return i, err
	}
	if it.body.lazy {
		i.Body, i.lazy = nil, &lazyBody{block: *it.body, stamp: it.stamp}
	} else {
		i.Body = it.body.content
	}
	return i, nil
}

// unmarshalItem decodes one item, turning a panic inside the YAML decoder
// into an error.
func unmarshalItem(src []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unreadable YAML: %v", r)
		}
	}()
	return yaml.Unmarshal(src, v)
}
