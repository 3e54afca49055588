package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/lwreplay/lwreplay/internal/cluster"
)

// The OpenAPI documents the replay serves for the built-in kinds, and its CRD templates
// (replayer/openapi). `go test ./e2e -run TestRecordOpenAPIDocuments -update` records them
// from a kube-apiserver of its own (no CRD of another test).
const (
	openapiBundle       = "../replayer/openapi/kube-apiserver-" + cluster.KubeVersion + ".tar.gz"
	openapiTemplateCRDs = "../replayer/openapi/testdata/template-crds.yaml"
	openapiTemplateGV   = "apis/zzz.lwreplay.test/v7alpha9"
)

// TestRecordOpenAPIDocuments rewrites openapiBundle under -update: the
// v2 document, and every v3 document of the index. Once the template
// CRDs are applied, it adds their group version's v3 document, and what
// they add to v2. Without -update it checks that the bundle is
// kube-apiserver's version's.
func TestRecordOpenAPIDocuments(t *testing.T) {
	if !*update {
		if _, err := os.Stat(openapiBundle); err != nil {
			t.Fatalf("got %v, want the bundle of kube-apiserver %s", err, cluster.KubeVersion)
		}
		return
	}
	c := cluster.StartT(t)
	cfg := c.RestConfig()
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) []byte {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, cfg.Host+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "application/json")
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: got %d %v, want 200", path, resp.StatusCode, err)
		}
		return b
	}
	type index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	// the index until it lists the same paths twice, a second apart
	// (kube-apiserver's aggregator fills it after it is ready), with want
	stableIndex := func(want string) index {
		t.Helper()
		var last string
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
			var idx index
			if err := json.Unmarshal(get("/openapi/v3"), &idx); err != nil {
				t.Fatal(err)
			}
			keys := make([]string, 0, len(idx.Paths))
			for k := range idx.Paths {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			now := strings.Join(keys, ",")
			if now == last && idx.Paths[want].ServerRelativeURL != "" {
				return idx
			}
			last = now
		}
		t.Fatalf("the /openapi/v3 index did not settle with %s", want)
		return index{}
	}
	files := map[string][]byte{}
	idx := stableIndex("apis/apps/v1")
	for p, gv := range idx.Paths {
		files["v3/"+p+".json"] = get(gv.ServerRelativeURL)
	}
	files["v2.json"] = get("/openapi/v2")
	var before struct {
		Paths       map[string]json.RawMessage `json:"paths"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(files["v2.json"], &before); err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(openapiTemplateCRDs)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(y), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, cfg.Host+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := rt.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("creating a template CRD: got %v %v, want 201", resp.Status, err)
		}
		resp.Body.Close()
	}
	idx = stableIndex(openapiTemplateGV)
	files["crd-v3.json"] = get(idx.Paths[openapiTemplateGV].ServerRelativeURL)
	var after struct {
		Paths       map[string]json.RawMessage `json:"paths"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		if err := json.Unmarshal(get("/openapi/v2"), &after); err != nil {
			t.Fatal(err)
		}
		if after.Paths["/apis/zzz.lwreplay.test/v7alpha9/zzzclusters"] != nil || time.Now().After(deadline) {
			break
		}
	}
	part := map[string]map[string]json.RawMessage{"paths": {}, "definitions": {}}
	for p, v := range after.Paths {
		if before.Paths[p] == nil {
			part["paths"][p] = v
		}
	}
	for d, v := range after.Definitions {
		if before.Definitions[d] == nil {
			part["definitions"][d] = v
		}
	}
	if len(part["paths"]) != 9 || len(part["definitions"]) != 4 {
		t.Fatalf("the template CRDs add %d paths and %d definitions to v2, want 9 and 4", len(part["paths"]), len(part["definitions"]))
	}
	if files["crd-v2.json"], err = json.Marshal(part); err != nil {
		t.Fatal(err)
	}
	b, err := openapiTarGz(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(openapiBundle, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d documents, %d bytes", openapiBundle, len(files), len(b))
}

// openapiTarGz is files as a tar.gz that depends on nothing else: names sorted,
// no times, no owners.
func openapiTarGz(files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if _, err := tw.Write(files[n]); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
