package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/lwreplay/lwreplay/cassette"
)

// applyManifests are what TestKubectlApplyCreateReplace writes: a
// ConfigMap, a Deployment and a Widget, whose CRD the served cassette
// holds (crdCassette).
var applyManifests = map[string]string{
	"configmap": `apiVersion: v1
kind: ConfigMap
metadata: {name: applied, namespace: default}
data: {a: b}
`,
	"deployment": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
`,
	"widget": `apiVersion: example.lwreplay.dev/v1
kind: Widget
metadata: {name: applied, namespace: default}
spec: {data: {a: b}}
`,
}

// crdCassette writes a cassette that holds the CRD of crdFile (YAML) and
// nothing else: a LIST of CustomResourceDefinitions.
func crdCassette(t *testing.T, crdFile string) string {
	t.Helper()
	y, err := os.ReadFile(crdFile)
	if err != nil {
		t.Fatal(err)
	}
	crd, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(crd, &obj); err != nil {
		t.Fatal(err)
	}
	obj["metadata"].(map[string]any)["resourceVersion"] = "10"
	obj["metadata"].(map[string]any)["uid"] = "crd-uid"
	list, err := json.Marshal(map[string]any{"kind": "CustomResourceDefinitionList", "apiVersion": "apiextensions.k8s.io/v1",
		"metadata": map[string]any{"resourceVersion": "10"}, "items": []any{obj}})
	if err != nil {
		t.Fatal(err)
	}
	f := cassette.New()
	f.Add(cassette.Interaction{Method: "GET", URL: "https://recorded.invalid/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Code: 200,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: list})
	path := filepath.Join(t.TempDir(), "crd.yaml")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// allKubectlVersions are the kubectl builds TestKubectlApplyCreateReplace
// runs (those missing are skipped).
var allKubectlVersions = []string{"1.27", "1.28", "1.29", "1.30", "1.31", "1.32", "1.33"}

// TestKubectlApplyCreateReplace runs kubectl's writes with its default
// validation, which reads /openapi/v3 (and, for kubectl 1.27's apply,
// /openapi/v2). It runs create, apply (a patch), replace and delete,
// then apply again (a create). Then it runs a create with an unknown
// field, which kubectl's server-side validation
// (fieldValidation=Strict) must refuse.
func TestKubectlApplyCreateReplace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kubectl")
	}
	dir := t.TempDir()
	files := map[string]string{}
	for name, m := range applyManifests {
		files[name] = filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(files[name], []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(applyManifests["deployment"], "replicas: 1", "replicas: 1\n  bogus: 1", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cas := crdCassette(t, filepath.Join("..", "..", "examples", "widgets", "testdata", "crd.yaml"))
	for _, v := range allKubectlVersions {
		for _, kind := range []string{"configmap", "deployment", "widget"} {
			t.Run("kubectl "+v+" - "+kind+" create, apply, replace, delete, apply - pass", func(t *testing.T) {
				k := kubectlPath(t, v)
				kc := startServe(t, cas)
				for _, verb := range []string{"create", "apply", "replace", "delete", "apply"} {
					out, err := exec.Command(k, "--kubeconfig", kc, verb, "-f", files[kind]).CombinedOutput()
					if err != nil {
						t.Fatalf("kubectl %s -f: got %v, want exit 0\n%s", verb, err, out)
					}
				}
			})
		}
		t.Run("kubectl "+v+" - explain of the CR - pass", func(t *testing.T) {
			k := kubectlPath(t, v)
			kc := startServe(t, cas)
			out, err := exec.Command(k, "--kubeconfig", kc, "explain", "widgets.spec.data").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "KIND:") || !strings.Contains(string(out), "Widget") {
				t.Errorf("kubectl explain widgets.spec.data: got %v\n%s\nwant the Widget's field", err, out)
			}
		})
		t.Run("kubectl "+v+" - create with an unknown field - fail", func(t *testing.T) {
			k := kubectlPath(t, v)
			kc := startServe(t, cas)
			out, err := exec.Command(k, "--kubeconfig", kc, "create", "-f", bad).CombinedOutput()
			want := `strict decoding error: unknown field "spec.bogus"`
			if err == nil || !strings.Contains(string(out), want) {
				t.Errorf("kubectl create -f of an unknown field: got %v\n%s\nwant an error saying %s", err, out, want)
			}
		})
	}
}
