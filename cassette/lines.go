package cassette

import "bytes"

// itemStart is where an item of a cassette's interactions sequence begins.
type itemStart struct {
	offset int // byte offset of its line
	line   int // 1-based line number
}

// itemStarts finds the items of the top-level interactions sequence by
// their indentation, without parsing the YAML. So it works on a file cut
// short too. The items are the lines after "interactions:" that start
// with "- " at the indentation of the first such line. A response body is
// a block or quoted scalar indented deeper than its item, so none of its
// lines is taken for one.
func itemStarts(data []byte) []itemStart {
	var out []itemStart
	in, indent := false, -1
	line := 0
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
			end += off
		} else {
			end = len(data)
		}
		text := bytes.TrimRight(data[off:end], " \r")
		line++
		trimmed := bytes.TrimLeft(text, " ")
		ind := len(text) - len(trimmed)
		item := bytes.Equal(trimmed, []byte("-")) || bytes.HasPrefix(trimmed, []byte("- "))
		switch {
		case !in:
			in = ind == 0 && bytes.Equal(text, []byte("interactions:"))
		case len(trimmed) == 0 || trimmed[0] == '#':
		case indent < 0 && item:
			indent = ind
			out = append(out, itemStart{offset: off, line: line})
		case indent < 0:
			return out
		case ind == indent && item:
			out = append(out, itemStart{offset: off, line: line})
		case ind <= indent:
			return out // the sequence has ended
		}
		off = next
	}
	return out
}
