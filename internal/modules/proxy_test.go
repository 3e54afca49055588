package modules

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeProxy writes module dir (of the repository at root) into a file
// module proxy at proxy, at version: <path>/@v/<version>.info, .mod and
// .zip, as the go command reads a GOPROXY=file://... directory.
func writeProxy(proxy, root, dir, version string) error {
	path := Path(dir)
	src := filepath.Join(root, dir)
	at := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	info, err := json.Marshal(struct{ Version, Time string }{version, "2026-01-01T00:00:00Z"})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, version+".info"), info, 0o644); err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, version+".mod"), mod, 0o644); err != nil {
		return err
	}
	return writeZip(filepath.Join(at, version+".zip"), src, path+"@"+version)
}

// writeZip zips the module whose go.mod is in src as the go command
// expects, each file under prefix/: without .git, build output
// (lwreplay-artifacts) and the directories of nested modules.
func writeZip(name, src, prefix string) (err error) {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	w := zip.NewWriter(f)
	walkErr := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			if d.Name() == ".git" || d.Name() == "lwreplay-artifacts" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module: not in this one's zip
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		zf, err := w.Create(prefix + "/" + filepath.ToSlash(rel))
		if err != nil {
			return fmt.Errorf("zip %s: %w", rel, err)
		}
		_, err = zf.Write(data)
		return err
	})
	return errors.Join(walkErr, w.Close())
}

// goSums returns the go.sum lines of the modules in dirs, each once.
func goSums(root string, dirs ...string) (string, error) {
	seen := map[string]bool{}
	var b strings.Builder
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(root, dir, "go.sum"))
		if err != nil {
			return "", err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line != "" && !seen[line] {
				seen[line] = true
				b.WriteString(line + "\n")
			}
		}
	}
	return b.String(), nil
}
