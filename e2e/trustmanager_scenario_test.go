package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"os/exec"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/history"
)

// The Bundle custom resource of cert-manager's trust-manager
// (examples/trustmanager) and the scenario TestRecordTrustManager records.
var (
	bundleGVR = schema.GroupVersionResource{Group: "trust.cert-manager.io", Version: "v1alpha1", Resource: "bundles"}
	// bundleResource is the bundles' log in a history.
	bundleResource = history.Resource{Group: "trust.cert-manager.io", Version: "v1alpha1", Resource: "bundles"}
)

const (
	// trustModule is trust-manager's Go module: its Bundle CRD comes from
	// the version examples/trustmanager's go.mod requires.
	trustModule = "github.com/cert-manager/trust-manager"
	// trustExample is the example module that requires it.
	trustExample = "../examples/trustmanager"
	// trustNS is trust-manager's trust namespace (its --trust-namespace
	// default): where a Bundle's ConfigMap and Secret sources live.
	trustNS = "cert-manager"
	// trustLabel labels the namespaces the team bundle selects.
	trustLabel = "trust.example/enabled"
)

// bundleCRDPath returns the path of trust-manager's Bundle CRD in the
// module cache: the module examples/trustmanager requires, downloaded
// first when the cache lacks it (go mod download -json). On a fresh
// machine the root module's tests run before that example's fetch it.
func bundleCRDPath(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, goTool(), "mod", "download", "-json", trustModule)
	cmd.Dir = trustExample
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go mod download %s in %s: %w: %s%s", trustModule, trustExample, err, stderr.String(), out.String())
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out.Bytes(), &mod); err != nil {
		return "", fmt.Errorf("go mod download -json %s: %w", trustModule, err)
	}
	if mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory: %s", trustModule, mod.Error)
	}
	return filepath.Join(mod.Dir, "deploy", "crds", "trust.cert-manager.io_bundles.yaml"), nil
}

// caPEM returns a fresh self-signed CA certificate named cn, PEM-encoded,
// valid from 1990 to 2099 (a replay's virtual clock starts in 2000). Its
// key is thrown away: the recording holds public certificates only.
func caPEM(cn string, serial int64) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"lwreplay e2e"}},
		NotBefore:             time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", fmt.Errorf("certificate %s: %w", cn, err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), nil
}

// trustCerts are the scenario's CA certificates, by role.
type trustCerts struct {
	corpRoot, corpNext, partner, partnerNext, team string
}

func newTrustCerts() (trustCerts, error) {
	var c trustCerts
	for i, p := range []*string{&c.corpRoot, &c.corpNext, &c.partner, &c.partnerNext, &c.team} {
		names := []string{"corp root CA", "corp next root CA", "partner CA", "partner next CA", "team CA"}
		s, err := caPEM(names[i], int64(i+1))
		if err != nil {
			return c, err
		}
		*p = s
	}
	return c, nil
}

// bundle returns a Bundle named name whose target is a ConfigMap key,
// sources as given, selecting namespaces by labels (nil: every one).
func bundle(name, key string, selector map[string]string, sources ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(bundleGVR.GroupVersion().String())
	u.SetKind("Bundle")
	u.SetName(name)
	srcs := make([]any, len(sources))
	for i, s := range sources {
		srcs[i] = s
	}
	target := map[string]any{"configMap": map[string]any{"key": key}}
	if selector != nil {
		ml := map[string]any{}
		for k, v := range selector {
			ml[k] = v
		}
		target["namespaceSelector"] = map[string]any{"matchLabels": ml}
	}
	u.Object["spec"] = map[string]any{"sources": srcs, "target": target}
	return u
}

// configMapSource, secretSource and inLineSource are Bundle sources.
func configMapSource(name, key string) map[string]any {
	return map[string]any{"configMap": map[string]any{"name": name, "key": key}}
}

func secretSource(name, key string) map[string]any {
	return map[string]any{"secret": map[string]any{"name": name, "key": key}}
}

func inLineSource(pem string) map[string]any { return map[string]any{"inLine": pem} }

// trustActor is the scenario's user: kubectl-like changes to namespaces,
// the trust namespace's sources and Bundles. Each is a second apart, so
// that each comes at a time of its own in the recording. trust-manager
// itself does not run: its writes are the target's in a replay.
type trustActor struct {
	cs    kubernetes.Interface
	dyn   dynamic.Interface
	certs trustCerts
	pause time.Duration
}

func (a trustActor) step(err error) error {
	if err == nil {
		time.Sleep(a.pause)
	}
	return err
}

func (a trustActor) createBundle(ctx context.Context, b *unstructured.Unstructured) error {
	_, err := a.dyn.Resource(bundleGVR).Create(ctx, b, metav1.CreateOptions{})
	if err != nil {
		err = fmt.Errorf("create bundle %s: %w", b.GetName(), err)
	}
	return a.step(err)
}

func (a trustActor) updateBundle(ctx context.Context, name string, change func(*unstructured.Unstructured) error) error {
	b, err := a.dyn.Resource(bundleGVR).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get bundle %s: %w", name, err)
	}
	if err := change(b); err != nil {
		return fmt.Errorf("change bundle %s: %w", name, err)
	}
	if _, err := a.dyn.Resource(bundleGVR).Update(ctx, b, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update bundle %s: %w", name, err)
	}
	return a.step(nil)
}

func (a trustActor) deleteBundle(ctx context.Context, name string) error {
	err := a.dyn.Resource(bundleGVR).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil {
		err = fmt.Errorf("delete bundle %s: %w", name, err)
	}
	return a.step(err)
}

func (a trustActor) createNamespace(ctx context.Context, name string, labels map[string]string) error {
	_, err := a.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		err = fmt.Errorf("create namespace %s: %w", name, err)
	}
	return a.step(err)
}

// labelNamespace sets (v != "") or removes (v == "") label k of namespace name.
func (a trustActor) labelNamespace(ctx context.Context, name, k, v string) error {
	ns, err := a.cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get namespace %s: %w", name, err)
	}
	if v == "" {
		delete(ns.Labels, k)
	} else {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[k] = v
	}
	if _, err := a.cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update namespace %s: %w", name, err)
	}
	return a.step(nil)
}

func (a trustActor) setConfigMapSource(ctx context.Context, name, key, data string) error {
	cms := a.cs.CoreV1().ConfigMaps(trustNS)
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: trustNS, Name: name}, Data: map[string]string{key: data}}, metav1.CreateOptions{})
	} else {
		cm.Data = map[string]string{key: data}
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		err = fmt.Errorf("configmap %s/%s: %w", trustNS, name, err)
	}
	return a.step(err)
}

func (a trustActor) setSecretSource(ctx context.Context, name, key, data string) error {
	ss := a.cs.CoreV1().Secrets(trustNS)
	s, err := ss.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		_, err = ss.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: trustNS, Name: name}, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{key: []byte(data)}}, metav1.CreateOptions{})
	} else {
		s.Data = map[string][]byte{key: []byte(data)}
		_, err = ss.Update(ctx, s, metav1.UpdateOptions{})
	}
	if err != nil {
		err = fmt.Errorf("secret %s/%s: %w", trustNS, name, err)
	}
	return a.step(err)
}

// trustBundleName and teamBundleName are the scenario's Bundles. The
// first selects every namespace, and is deleted, then created again
// under its name. The second selects the namespaces labelled trustLabel.
const (
	trustBundleName = "corp-trust"
	teamBundleName  = "team-trust"
)

// prepopulate makes what exists before the recording starts. That is the
// trust namespace with its sources (a ConfigMap and a Secret, each a CA),
// and two team namespaces (one labelled). And a Bundle of the ConfigMap's
// CA into every namespace.
func (a trustActor) prepopulate(ctx context.Context) error {
	steps := []func() error{
		func() error { return a.createNamespace(ctx, trustNS, nil) },
		func() error { return a.createNamespace(ctx, "team-a", map[string]string{trustLabel: "true"}) },
		func() error { return a.createNamespace(ctx, "team-b", nil) },
		func() error { return a.setConfigMapSource(ctx, "corp-roots", "ca.crt", a.certs.corpRoot) },
		func() error { return a.setSecretSource(ctx, "partner-ca", "ca.crt", a.certs.partner) },
		func() error {
			return a.createBundle(ctx, bundle(trustBundleName, "ca-certificates.crt", nil, configMapSource("corp-roots", "ca.crt")))
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

// mutate is the recorded scenario, what a cluster admin does: > a team
// Bundle created (a Secret and an inline source, labelled namespaces); >
// the corp root rotated (a second CA beside it in the ConfigMap); > the
// corp Bundle given the Secret as a second source; > a labelled namespace
// added, another labelled; > the team Bundle's target key changed; > the
// partner Secret rotated; > a namespace unlabelled. > Last, the corp
// Bundle is deleted and created again under its name (a new UID, its
// targets' owner gone).
func (a trustActor) mutate(ctx context.Context) error {
	c := a.certs
	steps := []func() error{
		func() error {
			return a.createBundle(ctx, bundle(teamBundleName, "team-ca.crt", map[string]string{trustLabel: "true"},
				secretSource("partner-ca", "ca.crt"), inLineSource(c.team)))
		},
		func() error { return a.setConfigMapSource(ctx, "corp-roots", "ca.crt", c.corpRoot+c.corpNext) },
		func() error {
			return a.updateBundle(ctx, trustBundleName, func(b *unstructured.Unstructured) error {
				return unstructured.SetNestedSlice(b.Object, []any{configMapSource("corp-roots", "ca.crt"), secretSource("partner-ca", "ca.crt")}, "spec", "sources")
			})
		},
		func() error { return a.createNamespace(ctx, "team-c", map[string]string{trustLabel: "true"}) },
		func() error { return a.labelNamespace(ctx, "team-b", trustLabel, "true") },
		func() error {
			return a.updateBundle(ctx, teamBundleName, func(b *unstructured.Unstructured) error {
				return unstructured.SetNestedField(b.Object, "team-bundle.pem", "spec", "target", "configMap", "key")
			})
		},
		func() error { return a.setSecretSource(ctx, "partner-ca", "ca.crt", c.partner+c.partnerNext) },
		func() error { return a.labelNamespace(ctx, "team-a", trustLabel, "") },
		func() error { return a.deleteBundle(ctx, trustBundleName) },
		func() error {
			return a.createBundle(ctx, bundle(trustBundleName, "ca-certificates.crt", nil, configMapSource("corp-roots", "ca.crt")))
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}
