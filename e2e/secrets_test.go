package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
)

// maxShipSize is the largest cassette the repository ships.
const maxShipSize = 1 << 20

// assertNoSecrets fails t if any file under dirs holds the cluster's
// bearer token, or the Authorization header value built from it. (It
// looks recursively, temporary and rotated files included.) It fails t if
// any cassette among them keeps an Authorization request header. It
// returns how many files it read.
func assertNoSecrets(t *testing.T, token string, dirs ...string) int {
	t.Helper()
	if token == "" {
		t.Fatalf("token: got none, want the cluster's")
	}
	needles := [][]byte{[]byte(token), []byte("Bearer " + token)}
	n := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			n++
			for _, s := range needles {
				if bytes.Contains(data, s) {
					t.Errorf("%s: holds the cluster's credentials (%d bytes matching), want none", p, len(s))
				}
			}
			if strings.HasSuffix(p, ".yaml") {
				if f, err := cassette.Load(p); err == nil {
					assertNoCredentialHeaders(t, f)
				}
			}
			return nil
		})
		if err != nil {
			t.Errorf("scanning %s: got error %v, want none", dir, err)
		}
	}
	return n
}

// assertNoCredentialHeaders fails t if an interaction of f keeps a
// request header that carries credentials.
func assertNoCredentialHeaders(t *testing.T, f *cassette.File) {
	t.Helper()
	for k, i := range f.Interactions {
		for h := range i.RequestHeader {
			switch strings.ToLower(h) {
			case "authorization", "proxy-authorization", "cookie":
				t.Errorf("%s: interaction %d: got a %s request header, want none", f.Path, k, h)
			}
		}
	}
}

// shipCassette copies the recorded cassette at src into the repository's
// cassettes directory as name when -e2e.ship is set.
func shipCassette(t *testing.T, src, name string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("read %s: %v", src, err)
	}
	if len(data) > maxShipSize {
		t.Errorf("%s: got %d bytes, want at most %d to ship", src, len(data), maxShipSize)
		return
	}
	if !*ship {
		return
	}
	dst := filepath.Join(shipDir, name)
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatalf("ship %s: %v", dst, err)
	}
	t.Logf("shipped %s (%d bytes)", dst, len(data))
}

// checkShippable checks, as a subtest named after label, that a recording
// holds no credential (token) in it or its dirs. It checks it is small
// enough to ship. With -update it writes the recording at out to dst.
func checkShippable(t *testing.T, label, token, out, dst string, dirs ...string) {
	t.Helper()
	t.Run(label+" - no credentials written, small enough to ship - pass", func(t *testing.T) {
		if n := assertNoSecrets(t, token, dirs...); n == 0 {
			t.Errorf("files scanned: got 0, want the recording")
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > maxShipSize {
			t.Fatalf("size: got %d bytes, want at most %d", len(data), maxShipSize)
		}
		if !*update {
			return
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatalf("write %s: got error %v, want none", dst, err)
		}
		t.Logf("wrote %s (%d bytes)", dst, len(data))
	})
}
