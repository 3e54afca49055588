package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// helpFlag matches a flag line of lwreplay VERB --help.
var helpFlag = regexp.MustCompile(`^\s+(?:-(\w), )?--([\w-]+)(\[=true\|false\])?(?:\s+(\w+))?`)

// verbFlags returns lwreplay verb name's flags, from its --help (name and
// shorthand → whether it is a bool); false for a verb the command lacks.
func verbFlags(name string) (map[string]bool, bool) {
	if !slices.ContainsFunc(verbs, func(v verb) bool { return v.name == name }) {
		return nil, false
	}
	var help bytes.Buffer
	run(context.Background(), []string{name, "--help"}, io.Discard, &help)
	flags := map[string]bool{"help": true, "h": true}
	for _, line := range strings.Split(help.String(), "\n") {
		m := helpFlag.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		isBool := m[3] != "" || m[4] == ""
		flags[m[2]] = isBool
		if m[1] != "" {
			flags[m[1]] = isBool
		}
	}
	return flags, true
}

// checkLwreplay checks an lwreplay command (args after the command):
// its verb and flags. Unless it is a synopsis, it checks the files it
// reads. inspect and version run (counted in ran).
func checkLwreplay(c docCommand, args []string, ran *int) error {
	if len(args) == 0 {
		return errors.New("no verb")
	}
	if c.synopsis && (args[0] == "…" || args[0] == "..." || strings.ToUpper(args[0]) == args[0]) {
		return nil // "lwreplay …": any verb
	}
	flags, ok := verbFlags(args[0])
	if !ok {
		return fmt.Errorf("verb %q: lwreplay has no such verb", args[0])
	}
	var positional []string
	output := false
	for i := 1; i < len(args); i++ {
		a := strings.Trim(args[i], "[]()")
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		isBool, ok := flags[name]
		if !ok {
			return fmt.Errorf("lwreplay %s: no flag --%s (see lwreplay %s --help)", args[0], name, args[0])
		}
		if slices.Contains([]string{"o", "output", "html", "write-kubeconfig", "cpuprofile"}, name) {
			output = true
		}
		if !isBool && !hasValue && !c.synopsis {
			if i+1 == len(args) {
				return fmt.Errorf("lwreplay %s: flag --%s has no value", args[0], name)
			}
			i++
		}
	}
	if c.synopsis {
		return nil
	}
	// A path with a directory is the repository's and must exist; a bare
	// name (incident.yaml) is the reader's own file.
	var abs []string
	ours := true
	for _, p := range positional {
		path := filepath.Join(repoRoot, c.dir, p)
		if !strings.Contains(p, "/") {
			ours = false
		} else if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("lwreplay %s: %s: %v", args[0], p, err)
		}
		abs = append(abs, path)
	}
	if (args[0] == "inspect" && len(abs) > 0 && ours && !output) || args[0] == "version" {
		var stderr bytes.Buffer
		real := append([]string{args[0]}, abs...)
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") {
				real = append(real, a)
			}
		}
		if code := run(context.Background(), real, io.Discard, &stderr); code != 0 {
			return fmt.Errorf("lwreplay %s: exit %d, want 0: %s", args[0], code, stderr.String())
		}
		*ran++
	}
	return nil
}

// checkOther checks a command of a code block that is neither go test
// nor lwreplay: a script of the repository exists.
func checkOther(c docCommand) error {
	if strings.HasSuffix(c.args[0], ".sh") {
		if _, err := os.Stat(filepath.Join(repoRoot, c.dir, c.args[0])); err != nil {
			return fmt.Errorf("script %s: %v", c.args[0], err)
		}
	}
	return nil
}
