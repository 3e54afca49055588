package cassharness

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	api "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"github.com/k8ssandra/cass-operator/pkg/oplabels"
	"github.com/k8ssandra/cass-operator/pkg/reconciliation"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

var record = flag.Bool("record", false, "record the cassettes into testdata from a real kube-apiserver")

const (
	userNS    = "cass"
	dcName    = "dc1"
	dcSize    = 2
	rackName  = "default"
	storClass = "standard"
)

// recorded are the resources the cassettes hold: the datacenters, the
// claims the StatefulSet controller would make, and the two kinds the
// deletion path reads besides (StatefulSets, and pods by claim).
var recorded = "cassandradatacenters.cassandra.datastax.com,persistentvolumeclaims,statefulsets.apps,pods"

// TestRecordCassandra records what a user of cass-operator does: a
// CassandraDatacenter created, deleted, and created again under its name.
// It runs under -record only, against a real kube-apiserver 1.37.2 with
// cass-operator's CRD, and writes testdata/cassandra-{watchlist,list-pages}.yaml.
//
// No operator and no kube-controller-manager run: in the replay the
// operator's writes are the target's. The claims a StatefulSet controller
// makes for the operator's StatefulSet (server-data-<sts>-<ordinal>, with
// the template's labels) are created by the user here, as it would make
// them, a few seconds after each datacenter. The first datacenter's claims
// are deleted 20 s after it, as the operator's deletion does (deletePVCs),
// so that the second's can be made under the same names; in the replay the
// operator has deleted them by then, and the recorded deletes find nothing.
func TestRecordCassandra(t *testing.T) {
	if !*record {
		t.Skip("records only under -record")
	}
	c := startCluster(t)
	ctx := t.Context()
	cl, err := client.New(c.restConfig(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	applyCRD(t, ctx, c)
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: userNS}}); err != nil {
		t.Fatal(err)
	}
	lw := buildLwreplay(t)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	c.writeKubeconfig(t, kubeconfig)
	common := []string{"record", "--kubeconfig", kubeconfig, "--resource", recorded, "--all-namespaces", "--flush-interval", "200ms"}
	recs := map[string]*exec.Cmd{
		"cassandra-watchlist.yaml":  exec.Command(lw, append(common, "-o", filepath.Join(dir, "cassandra-watchlist.yaml"))...),
		"cassandra-list-pages.yaml": exec.Command(lw, append(common, "--watchlist", "off", "--page-size", "2", "-o", filepath.Join(dir, "cassandra-list-pages.yaml"))...),
	}
	for name, cmd := range recs {
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Logf("%s: %s", name, strings.TrimSpace(out.String()))
		})
	}
	for name := range recs {
		waitFile(t, filepath.Join(dir, name))
	}
	time.Sleep(2 * time.Second)

	first := userSequence(t, ctx, cl)

	time.Sleep(3 * time.Second)
	for name, cmd := range recs {
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: lwreplay record: %v", name, err)
		}
	}
	var pvcList corev1.PersistentVolumeClaimList
	if err := cl.List(ctx, &pvcList, client.InNamespace(userNS)); err != nil {
		t.Fatal(err)
	}
	for name := range recs {
		t.Run("record cassandra - "+name+" - the datacenter recreated, its claims at the real final state - pass", func(t *testing.T) {
			h := loadHistory(t, filepath.Join(dir, name))
			dl, ok := h.Log(datacenters)
			if !ok {
				t.Fatal("no cassandradatacenters log")
			}
			final := dl.StateAt(dl.End())
			if len(final) != 1 || final[0].UID == first {
				t.Errorf("final datacenters: got %d (uid %v), want the recreated one", len(final), uids(final))
			}
			pl, ok := h.Log(pvcs)
			if !ok {
				t.Fatal("no persistentvolumeclaims log")
			}
			got := uids(pl.StateAt(pl.End()))
			var want []string
			for _, p := range pvcList.Items {
				want = append(want, string(p.UID))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("final claims: got %v, want %v", got, want)
			}
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// userSequence is the user's story, and the StatefulSet controller's
// claims. It returns the first datacenter's UID.
func userSequence(t *testing.T, ctx context.Context, cl client.Client) string {
	dc := newDatacenter()
	step(t, "create datacenter", cl.Create(ctx, dc))
	first := string(dc.UID)
	time.Sleep(5 * time.Second)
	claims := createClaims(t, ctx, cl, dc)
	time.Sleep(10 * time.Second)
	step(t, "delete datacenter", cl.Delete(ctx, dc))
	time.Sleep(20 * time.Second)
	for _, p := range claims {
		step(t, "delete claim "+p.Name, client.IgnoreNotFound(cl.Delete(ctx, p)))
	}
	time.Sleep(10 * time.Second)
	dc2 := newDatacenter()
	step(t, "create datacenter again", cl.Create(ctx, dc2))
	time.Sleep(5 * time.Second)
	createClaims(t, ctx, cl, dc2)
	time.Sleep(10 * time.Second)
	return first
}

// newDatacenter is the user's CassandraDatacenter: one rack of dcSize
// nodes, each with a claim of the storage class storClass.
func newDatacenter() *api.CassandraDatacenter {
	sc := storClass
	return &api.CassandraDatacenter{
		ObjectMeta: metav1.ObjectMeta{Namespace: userNS, Name: dcName},
		Spec: api.CassandraDatacenterSpec{
			ClusterName:   "cluster1",
			ServerType:    "cassandra",
			ServerVersion: "4.1.5",
			Size:          dcSize,
			StorageConfig: api.StorageConfig{CassandraDataVolumeClaimSpec: &corev1.PersistentVolumeClaimSpec{
				StorageClassName: &sc,
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			}},
		},
	}
}

// createClaims makes the claims the StatefulSet controller makes for the
// operator's StatefulSet of dc: server-data-<sts>-<ordinal>, with the
// template's labels and annotations (construct_statefulset.go).
func createClaims(t *testing.T, ctx context.Context, cl client.Client, dc *api.CassandraDatacenter) []*corev1.PersistentVolumeClaim {
	sts := reconciliation.NewNamespacedNameForStatefulSet(dc, rackName)
	labels := dc.GetRackLabels(rackName)
	oplabels.AddOperatorLabels(labels, dc)
	anns := map[string]string{}
	oplabels.AddOperatorAnnotations(anns, dc)
	var out []*corev1.PersistentVolumeClaim
	for i := range dcSize {
		p := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: userNS, Name: fmt.Sprintf("%s-%s-%d", reconciliation.PvcName, sts.Name, i), Labels: labels, Annotations: anns},
			Spec:       *dc.Spec.StorageConfig.CassandraDataVolumeClaimSpec.DeepCopy(),
		}
		step(t, "create claim "+p.Name, cl.Create(ctx, p))
		out = append(out, p)
	}
	return out
}

func step(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Logf("%s %s", time.Now().UTC().Format("15:04:05.000"), what)
}

// applyCRD creates cass-operator's CassandraDatacenter CRD from the
// source's config/crd, and waits until it is served.
func applyCRD(t *testing.T, ctx context.Context, c *realCluster) {
	b, err := os.ReadFile(filepath.Join(operatorSource, "config", "crd", "bases", "cassandra.datastax.com_cassandradatacenters.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.restConfig())
	if err != nil {
		t.Fatal(err)
	}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(crds).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: datacenters.Group, Version: datacenters.Version, Resource: datacenters.Resource}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err == nil {
			return
		}
		if !apierrors.IsNotFound(err) || time.Now().After(deadline) {
			t.Fatalf("CRD not served: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// buildLwreplay builds the lwreplay CLI of the module this one requires.
func buildLwreplay(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/lwreplay/lwreplay").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "lwreplay")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/lwreplay")
	cmd.Dir = strings.TrimSpace(string(out))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build lwreplay: %v\n%s", err, b)
	}
	return bin
}

func waitFile(t *testing.T, p string) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(p); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not written within a minute", p)
}

func loadHistory(t *testing.T, p string) *history.History {
	recs, err := cassette.LoadRecordings([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.Build(recs[0].Files...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func uids(objs []*history.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.UID)
	}
	return out
}
