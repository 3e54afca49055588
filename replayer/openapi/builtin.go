package openapi

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
)

// KubeVersion is the kube-apiserver whose documents the replay serves for
// the built-in resources.
const KubeVersion = "v1.37.2"

// recorded holds kube-apiserver v1.37.2's documents as it served them
// (default flags, no CRD, no aggregated API):
//   - v2.json (/openapi/v2);
//   - v3/<path>.json (/openapi/v3/<path>, one a path of its /openapi/v3
//     index);
//   - the documents it builds for two CRDs of group zzz.lwreplay.test
//     version v7alpha9: crd-v3.json, their group version's v3 document,
//     and crd-v2.json, the paths and definitions they add to /openapi/v2.
//
// The two CRDs are Zzznamespaced (namespaced) and Zzzcluster
// (cluster-scoped). Both have the status and scale subresources and a
// schema that keeps unknown fields. testdata/template-crds.yaml holds
// them. `go test ./e2e -run TestRecordOpenAPIDocuments -update` records
// the documents again from a kube-apiserver of its own.
// TestServedOpenAPILikeRealApiserver compares what is served with a
// running kube-apiserver's answers.
//
//go:embed kube-apiserver-v1.37.2.tar.gz
var recorded []byte

// builtinDocs are the recorded documents, read once.
type builtinDocs struct {
	v2     []byte
	v3     map[string][]byte // by index path: "api/v1", "apis/apps/v1"
	crdV3  []byte
	crdV2  []byte
	paths  []string // v3's index paths, sorted
	loaded error
}

// builtin reads recorded once.
var builtin = sync.OnceValue(func() *builtinDocs {
	b, err := readRecorded(recorded)
	if err != nil {
		return &builtinDocs{loaded: err}
	}
	return b
})

// readRecorded reads the tar.gz of the recorded documents.
func readRecorded(data []byte) (*builtinDocs, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("openapi: the recorded documents: %w", err)
	}
	out := &builtinDocs{v3: map[string][]byte{}}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("openapi: the recorded documents: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("openapi: the recorded documents: %s: %w", h.Name, err)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		switch {
		case name == "v2.json":
			out.v2 = body
		case name == "crd-v3.json":
			out.crdV3 = body
		case name == "crd-v2.json":
			out.crdV2 = body
		case strings.HasPrefix(name, "v3/") && strings.HasSuffix(name, ".json"):
			p := strings.TrimSuffix(strings.TrimPrefix(name, "v3/"), ".json")
			out.v3[p] = body
			out.paths = append(out.paths, p)
		}
	}
	if out.v2 == nil || out.crdV3 == nil || out.crdV2 == nil || len(out.v3) == 0 {
		return nil, errors.New("openapi: the recorded documents: v2.json, crd-v2.json, crd-v3.json or v3/ missing")
	}
	return out, nil
}
