package trustmanager

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	trustapi "github.com/cert-manager/trust-manager/pkg/apis/trust/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// The resources trust-manager's Bundle controller watches, as the
// cassettes name them.
var (
	bundles    = history.Resource{Group: trustapi.SchemeGroupVersion.Group, Version: trustapi.SchemeGroupVersion.Version, Resource: "bundles", Kind: "Bundle"}
	configMaps = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	namespaces = history.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}
	secrets    = history.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
)

// ErrTargetOutOfSync says a selected namespace's target ConfigMap does not
// hold its Bundle's certificates, or is not the Bundle's, or is missing.
var ErrTargetOutOfSync = errors.New("a bundle's target is out of sync")

// targetsHoldBundle is trust-manager's promise, judged on the end state.
// Its command's help says: "Bundle ... sources are concatenated into an
// output bundle target, which can then be made available to all services
// across a cluster". Take every Bundle whose sources all resolve. Every
// namespace its target's namespaceSelector selects, and that is not
// terminating, holds a ConfigMap named after the Bundle. The Bundle
// controls it. Its target key holds exactly the sources' certificates.
var targetsHoldBundle = fuzz.NewInvariant("targets-hold-bundle",
	"every namespace a Bundle selects ends with a ConfigMap of the Bundle's name, controlled by it, holding exactly its sources' certificates under its target key",
	func(truth *history.Log, obs *fuzz.Observation) error {
		end := func(r history.Resource) []*history.Object {
			if l, ok := obs.Served.Log(r); ok {
				return l.StateAt(l.End())
			}
			return nil
		}
		cms := map[string]corev1.ConfigMap{}
		for _, o := range end(configMaps) {
			var cm corev1.ConfigMap
			if err := json.Unmarshal(o.Raw, &cm); err != nil {
				return fmt.Errorf("configmap %s: %w", o.Key(), err)
			}
			cms[o.Key()] = cm
		}
		secs := map[string]corev1.Secret{}
		for _, o := range end(secrets) {
			var s corev1.Secret
			if err := json.Unmarshal(o.Raw, &s); err != nil {
				return fmt.Errorf("secret %s: %w", o.Key(), err)
			}
			secs[o.Key()] = s
		}
		var nss []corev1.Namespace
		for _, o := range end(namespaces) {
			var ns corev1.Namespace
			if err := json.Unmarshal(o.Raw, &ns); err != nil {
				return fmt.Errorf("namespace %s: %w", o.Key(), err)
			}
			nss = append(nss, ns)
		}
		var errs []error
		for _, o := range end(bundles) {
			var b trustapi.Bundle
			if err := json.Unmarshal(o.Raw, &b); err != nil {
				return fmt.Errorf("bundle %s: %w", o.Key(), err)
			}
			if b.DeletionTimestamp != nil || b.Spec.Target.ConfigMap == nil {
				continue
			}
			want, ok := resolve(b.Spec.Sources, cms, secs)
			if !ok {
				continue // a source missing: the Bundle is not synced, by design
			}
			sel := labels.Everything()
			if b.Spec.Target.NamespaceSelector != nil {
				s, err := metav1.LabelSelectorAsSelector(b.Spec.Target.NamespaceSelector)
				if err != nil {
					continue
				}
				sel = s
			}
			for _, ns := range nss {
				if ns.Status.Phase == corev1.NamespaceTerminating || !sel.Matches(labels.Set(ns.Labels)) {
					continue
				}
				if err := checkTarget(cms, ns.Name, &b, want); err != nil {
					errs = append(errs, err)
				}
			}
		}
		return errors.Join(errs...)
	})

// checkTarget says whether namespace ns holds b's target ConfigMap,
// controlled by b, whose key holds the certificates want.
func checkTarget(cms map[string]corev1.ConfigMap, ns string, b *trustapi.Bundle, want map[string]bool) error {
	key := b.Spec.Target.ConfigMap.Key
	cm, ok := cms[ns+"/"+b.Name]
	if !ok {
		return fmt.Errorf("%w: namespace %s: got no configmap %s, want bundle %s's target", ErrTargetOutOfSync, ns, b.Name, b.Name)
	}
	if !metav1.IsControlledBy(&cm, b) {
		return fmt.Errorf("%w: configmap %s/%s: got controller %s, want bundle %s (uid %s)", ErrTargetOutOfSync, ns, b.Name, controllerOf(&cm), b.Name, b.UID)
	}
	got := certSet(cm.Data[key])
	if !maps.Equal(got, want) {
		return fmt.Errorf("%w: configmap %s/%s key %q: got %d certificates %v, want %d %v (keys %q)", ErrTargetOutOfSync, ns, b.Name, key,
			len(got), fingerprints(got), len(want), fingerprints(want), slices.Sorted(maps.Keys(cm.Data)))
	}
	return nil
}

// resolve returns the certificates of sources (ConfigMap and Secret keys
// of the trust namespace, inline PEM), as DER strings. It returns false
// when one is missing, or of a kind the example's cassettes do not use.
func resolve(sources []trustapi.BundleSource, cms map[string]corev1.ConfigMap, secs map[string]corev1.Secret) (map[string]bool, bool) {
	out := map[string]bool{}
	for _, s := range sources {
		var data string
		switch {
		case s.ConfigMap != nil && s.ConfigMap.Name != "" && s.ConfigMap.Key != "":
			cm, ok := cms[TrustNamespace+"/"+s.ConfigMap.Name]
			if !ok {
				return nil, false
			}
			if data, ok = cm.Data[s.ConfigMap.Key]; !ok {
				return nil, false
			}
		case s.Secret != nil && s.Secret.Name != "" && s.Secret.Key != "":
			sec, ok := secs[TrustNamespace+"/"+s.Secret.Name]
			if !ok {
				return nil, false
			}
			d, ok := sec.Data[s.Secret.Key]
			if !ok {
				return nil, false
			}
			data = string(d)
		case s.InLine != "":
			data = s.InLine
		default:
			return nil, false
		}
		maps.Copy(out, certSet(data))
	}
	return out, len(out) > 0
}

// certSet returns the CERTIFICATE blocks of PEM data, as DER strings.
func certSet(data string) map[string]bool {
	out := map[string]bool{}
	rest := []byte(data)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return out
		}
		if b.Type == "CERTIFICATE" {
			out[string(b.Bytes)] = true
		}
	}
}

// fingerprints names certificates by their DER's last 6 bytes, in hex.
func fingerprints(set map[string]bool) string {
	var out []string
	for der := range set {
		tail := der[max(0, len(der)-6):]
		out = append(out, fmt.Sprintf("%x", tail))
	}
	slices.Sort(out)
	return "[" + strings.Join(out, " ") + "]"
}

// controllerOf names o's controlling owner ("none" if it has none).
func controllerOf(o metav1.Object) string {
	if r := metav1.GetControllerOf(o); r != nil {
		return fmt.Sprintf("%s %s (uid %s)", r.Kind, r.Name, r.UID)
	}
	return "none"
}
