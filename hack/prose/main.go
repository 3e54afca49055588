// Command prose measures sentence length in Go comments and Markdown.
//
//	go run ./hack/prose [-long N] [-only go|md] [paths...]
//
// Each path is a directory (walked) or a file; the default is ".".
// Every Go package directory is one row: the sentences of all comments
// of its .go files, tests included. Every .md file is one row.
// A row prints the number of sentences, the median and 90th-percentile
// words per sentence, and where the longest sentence starts.
// A last row sums all rows. With -long N, every sentence of more than
// N words is also printed with its location.
//
// What counts as prose:
//   - Go: each comment group's text (go/ast CommentGroup.Text, which drops
//     directives). Lines indented by a space or tab are skipped: they are
//     code blocks and lists in the doc comment syntax.
//   - Markdown: paragraphs and list items. Skipped: fenced code, tables
//     (lines starting with "|"), headings, HTML lines, and lines that are
//     only a link. A link counts as its text.
//   - Everywhere: words with "://" (URLs) are dropped; a word is a
//     whitespace-separated token with a letter or a digit in it.
//
// A paragraph or list item ends a sentence. Inside one, a sentence ends at
// ".", "?", "!" or ":" (after optional closing quotes, brackets or
// backticks) followed by spaces and an upper-case letter (after optional
// opening quotes, brackets or backticks). After ".", "?" or "!" a word in
// backticks starts a sentence too. So "e.g. Foo" splits and "i.e. foo"
// does not; that is close enough to rank long sentences.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode"
)

// sentence is one sentence with its word count and where it starts.
type sentence struct {
	words int
	loc   string
	text  string
}

// row is the sentences of one Go package directory or one .md file.
type row struct {
	name      string
	sentences []sentence
}

func main() {
	long := flag.Int("long", 0, "also print every sentence of more than `N` words")
	only := flag.String("only", "", "measure only Go comments (go) or only Markdown (md)")
	flag.Parse()
	if *only != "" && *only != "go" && *only != "md" {
		fmt.Fprintf(os.Stderr, "prose: -only is go or md, not %q\n", *only)
		os.Exit(2)
	}
	paths := flag.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	rows, err := collect(paths, *only)
	if err != nil {
		fmt.Fprintf(os.Stderr, "prose: %v\n", err)
		os.Exit(1)
	}
	print(os.Stdout, rows, *long)
}

// collect walks paths and returns one row per Go package dir and .md file.
// only, when not empty, keeps one kind of source: "go" or "md".
func collect(paths []string, only string) ([]row, error) {
	goFiles := map[string][]string{} // dir → .go files
	var mdFiles []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != p && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
					name == "testdata" || name == "vendor" || name == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case strings.HasSuffix(name, ".go") && only != "md":
				dir := filepath.Dir(path)
				goFiles[dir] = append(goFiles[dir], path)
			case strings.HasSuffix(name, ".md") && only != "go":
				mdFiles = append(mdFiles, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var rows []row
	for dir, files := range goFiles {
		r := row{name: dir + "/"}
		for _, f := range files {
			s, err := goSentences(f)
			if err != nil {
				return nil, err
			}
			r.sentences = append(r.sentences, s...)
		}
		rows = append(rows, r)
	}
	for _, f := range mdFiles {
		s, err := mdSentences(f)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row{name: f, sentences: s})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	return rows, nil
}

// paragraph is prose lines that run together, with their line numbers.
type paragraph struct {
	file  string
	lines []string
	nums  []int
}

// add appends a line; a paragraph with lines is flushed by the caller.
func (p *paragraph) add(line string, num int) {
	p.lines = append(p.lines, line)
	p.nums = append(p.nums, num)
}

// sentences splits the paragraph and resets it.
func (p *paragraph) sentences() []sentence {
	if len(p.lines) == 0 {
		return nil
	}
	var b strings.Builder
	starts := make([]int, len(p.lines)) // offset of each line in b
	for i, l := range p.lines {
		if i > 0 {
			b.WriteByte(' ')
		}
		starts[i] = b.Len()
		b.WriteString(l)
	}
	text := b.String()
	var out []sentence
	for _, sp := range split(text) {
		n := countWords(text[sp[0]:sp[1]])
		if n == 0 {
			continue
		}
		i := sort.SearchInts(starts, sp[0]+1) - 1
		out = append(out, sentence{
			words: n,
			loc:   fmt.Sprintf("%s:%d", p.file, p.nums[i]),
			text:  strings.TrimSpace(text[sp[0]:sp[1]]),
		})
	}
	p.lines, p.nums = nil, nil
	return out
}

// goSentences returns the sentences of the comments of one Go file.
func goSentences(path string) ([]sentence, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []sentence
	for _, cg := range f.Comments {
		p := paragraph{file: path}
		first := fset.Position(cg.Pos()).Line
		for i, line := range strings.Split(cg.Text(), "\n") {
			// Text drops directive lines, so i is only close to the line;
			// the group's first line plus i is good enough to find it.
			if strings.TrimSpace(line) == "" || line[0] == ' ' || line[0] == '\t' {
				out = append(out, p.sentences()...)
				continue
			}
			p.add(line, first+i)
		}
		out = append(out, p.sentences()...)
	}
	return out, nil
}

var (
	linkOnly = regexp.MustCompile(`^\s*([-*+]|\d+\.)?\s*(\[[^\]]*\]\([^)]*\)|<[^>]*>)[\s.,;]*$`)
	listItem = regexp.MustCompile(`^\s*([-*+]|\d+\.)\s+`)
	link     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// mdSentences returns the prose sentences of one Markdown file.
func mdSentences(path string) ([]sentence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []sentence
	p := paragraph{file: path}
	fence := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for num := 1; sc.Scan(); num++ {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(trim, "```"), strings.HasPrefix(trim, "~~~"):
			out = append(out, p.sentences()...)
			fence = trim[:3]
		case trim == "", strings.HasPrefix(trim, "|"), strings.HasPrefix(trim, "#"),
			strings.HasPrefix(trim, "<"), linkOnly.MatchString(line):
			out = append(out, p.sentences()...)
		default:
			if listItem.MatchString(line) {
				out = append(out, p.sentences()...)
				line = listItem.ReplaceAllString(line, "")
			}
			p.add(link.ReplaceAllString(strings.TrimLeft(line, "> "), "$1"), num)
		}
	}
	out = append(out, p.sentences()...)
	return out, sc.Err()
}

// split returns the [start, end) offsets of the sentences of text.
func split(text string) [][2]int {
	var out [][2]int
	start := 0
	r := []rune(text)
	// Work on byte offsets: walk runes but keep byte positions.
	pos := make([]int, len(r)+1)
	for i, b := 0, 0; i < len(r); i++ {
		pos[i] = b
		b += len(string(r[i]))
	}
	pos[len(r)] = len(text)
	for i := 0; i < len(r); i++ {
		if !strings.ContainsRune(".?!:", r[i]) {
			continue
		}
		j := i + 1
		for j < len(r) && strings.ContainsRune(`)]"'`+"`*_”’", r[j]) {
			j++
		}
		k := j
		for k < len(r) && r[k] == ' ' {
			k++
		}
		if k == j || k == len(r) {
			continue
		}
		m := k
		for m < len(r) && strings.ContainsRune(`(["'`+"`*_“‘", r[m]) {
			m++
		}
		// After ".", "?" or "!", a word in backticks also starts a
		// sentence: "`go test` runs it." Not after ":", where code
		// usually follows.
		code := r[i] != ':' && m > k && r[m-1] == '`'
		if m < len(r) && (unicode.IsUpper(r[m]) || code) {
			out = append(out, [2]int{pos[start], pos[j]})
			start = k
			i = k - 1
		}
	}
	if strings.TrimSpace(text[pos[start]:]) != "" {
		out = append(out, [2]int{pos[start], len(strings.TrimRightFunc(text, unicode.IsSpace))})
	}
	return out
}

// countWords counts the words of s, skipping URLs.
func countWords(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if strings.Contains(w, "://") {
			continue
		}
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// stats returns the median and 90th-percentile word counts and the longest.
func stats(s []sentence) (median, p90 float64, longest sentence) {
	if len(s) == 0 {
		return 0, 0, sentence{}
	}
	w := make([]int, len(s))
	for i, x := range s {
		w[i] = x.words
		if x.words > longest.words {
			longest = x
		}
	}
	slices.Sort(w)
	n := len(w)
	if n%2 == 1 {
		median = float64(w[n/2])
	} else {
		median = float64(w[n/2-1]+w[n/2]) / 2
	}
	k := (9*n + 9) / 10 // nearest rank: ceil(0.9 n)
	p90 = float64(w[k-1])
	return median, p90, longest
}

// print writes one line per row, a total line, and with long > 0 the
// sentences longer than long words.
func print(out *os.File, rows []row, long int) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "sentences\tmedian\tp90\tmax\t  path\tlongest at\t")
	var all []sentence
	for _, r := range rows {
		if len(r.sentences) == 0 {
			continue
		}
		all = append(all, r.sentences...)
		m, p, l := stats(r.sentences)
		fmt.Fprintf(tw, "%d\t%.1f\t%.0f\t%d\t  %s\t%s\t\n", len(r.sentences), m, p, l.words, r.name, l.loc)
	}
	m, p, l := stats(all)
	fmt.Fprintf(tw, "%d\t%.1f\t%.0f\t%d\t  %s\t%s\t\n", len(all), m, p, l.words, "(all)", l.loc)
	tw.Flush()
	if long <= 0 {
		return
	}
	for _, s := range all {
		if s.words > long {
			fmt.Fprintf(out, "\n%s (%d words)\n  %s\n", s.loc, s.words, s.text)
		}
	}
}
