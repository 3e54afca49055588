package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository, from this package's directory.
const repoRoot = "../.."

// docCommand is one command a document shows.
type docCommand struct {
	where string   // file:line
	dir   string   // the directory it runs in, relative to the repository
	text  string   // as shown
	args  []string // its words, environment assignments left out
	// synopsis says the command is a usage line (placeholders, [optional]
	// parts, alternatives): only its verb and flag names are checked.
	synopsis bool
}

// isSynopsis reports whether a code span is a usage line, not a command.
func isSynopsis(span string) bool {
	return strings.ContainsAny(span, "[…") || strings.Contains(span, "...") || placeholder.MatchString(span)
}

// placeholder matches a word in capitals standing for a value (CASSETTE,
// FILE, DIR).
var placeholder = regexp.MustCompile(`(^|[\s=/])[A-Z][A-Z_]+(\.\.\.)?($|[\s.,/])`)

// commandDocs are the documents whose commands TestDocsCommands checks:
// the README, docs/ and the examples' READMEs, relative to the repository.
func commandDocs(t *testing.T) []string {
	t.Helper()
	docs := []string{"README.md"}
	for _, pattern := range []string{"docs/*.md", "examples/*/README.md"} {
		m, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			rel, _ := filepath.Rel(repoRoot, p)
			docs = append(docs, rel)
		}
	}
	return docs
}

// codeSpan matches an inline code span.
var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// docCommands returns the commands of doc (relative to the repository).
// They are each line of its shell code blocks, and each inline code span
// that starts a command (go test, go run ./cmd/lwreplay, lwreplay). A
// block's commands run from the repository's root, or where a cd in the
// block went; a span's from the root.
func docCommands(t *testing.T, doc string) []docCommand {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	inBlock, shell, dir := false, false, "."
	for i, line := range strings.Split(string(data), "\n") {
		where := fmt.Sprintf("%s:%d", doc, i+1)
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if !inBlock {
				lang := strings.TrimPrefix(trimmed, "```")
				shell, dir = lang == "" || lang == "sh" || lang == "bash" || lang == "console", "."
			}
			inBlock = !inBlock
			continue
		}
		if inBlock {
			if shell {
				out = append(out, shellCommands(where, strings.TrimPrefix(trimmed, "$ "), &dir, true)...)
			}
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(strings.ReplaceAll(line, `\|`, "|"), -1) {
			if isSynopsis(m[1]) {
				if args := strings.Fields(m[1]); knownCommand(args) {
					out = append(out, docCommand{where: where, dir: ".", text: m[1], args: args, synopsis: true})
				}
				continue
			}
			span := "."
			out = append(out, shellCommands(where, m[1], &span, false)...)
		}
	}
	return out
}

// shellCommands splits a line of shell into its commands, on &&, ; and
// parentheses, with a comment cut off. It follows cd: a cd inside
// parentheses lasts to their end, one outside them changes *dir. Out of
// a code block (block false), only the commands lwreplay's checks know
// are kept.
func shellCommands(where, line string, dir *string, block bool) []docCommand {
	words := shellWords(line)
	var out []docCommand
	cur, stack := []string{}, []string{}
	flush := func() {
		defer func() { cur = nil }()
		args := cur
		for len(args) > 0 && envAssign.MatchString(args[0]) {
			args = args[1:]
		}
		if len(args) == 0 {
			return
		}
		if args[0] == "cd" && len(args) == 2 {
			*dir = filepath.Join(*dir, args[1])
			return
		}
		if block || knownCommand(args) {
			out = append(out, docCommand{where: where, dir: *dir, text: line, args: args})
		}
	}
	for _, w := range words {
		switch w {
		case "&&", ";", "||", "|":
			flush()
		case "(":
			flush()
			stack = append(stack, *dir)
		case ")":
			flush()
			if n := len(stack); n > 0 {
				*dir, stack = stack[n-1], stack[:n-1]
			}
		default:
			cur = append(cur, w)
		}
	}
	flush()
	return out
}

// envAssign matches an environment assignment before a command.
var envAssign = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)

// knownCommand reports whether args run go test or lwreplay.
func knownCommand(args []string) bool {
	switch {
	case len(args) >= 2 && args[0] == "go" && args[1] == "test":
		return true
	case len(args) >= 3 && args[0] == "go" && args[1] == "run" && args[2] == "./cmd/lwreplay":
		return true
	case len(args) >= 2 && args[0] == "lwreplay":
		return true
	}
	return false
}

// shellWords splits line into words as a shell would (quotes removed),
// with (, ), &&, ||, | and ; words of their own, from # on left out.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	end := func() {
		if in {
			words = append(words, cur.String())
		}
		cur.Reset()
		in = false
	}
	runes := []rune(line)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '#' && !in:
			end()
			return words
		case r == ' ' || r == '\t':
			end()
		case r == '(' || r == ')' || r == ';':
			end()
			words = append(words, string(r))
		case (r == '&' || r == '|') && i+1 < len(runes) && runes[i+1] == r:
			end()
			words = append(words, string(r)+string(r))
			i++
		case r == '|':
			end()
			words = append(words, "|")
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	end()
	return words
}
