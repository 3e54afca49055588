package faultstest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
)

// objectState is one object of a state: its key, resourceVersion and
// content as the typed client sees it (canonical JSON without kind and
// apiVersion).
type objectState struct {
	Key, RV, Content string
}

// String renders "key@rv".
func (o objectState) String() string { return o.Key + "@" + o.RV }

// canonical renders a ConfigMap as canonical JSON (object keys sorted),
// without kind and apiVersion.
func canonical(cm *corev1.ConfigMap) (string, error) {
	b, err := json.Marshal(cm)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "", err
	}
	delete(m, "kind")
	delete(m, "apiVersion")
	b, err = json.Marshal(m)
	return string(b), err
}

// storeState renders an informer's store, sorted by key.
func storeState(t testing.TB, objs []any) []objectState {
	t.Helper()
	out := make([]objectState, 0, len(objs))
	for _, o := range objs {
		cm, ok := o.(*corev1.ConfigMap)
		if !ok {
			t.Fatalf("store item: got %T, want *v1.ConfigMap", o)
		}
		k, err := cache.MetaNamespaceKeyFunc(cm)
		if err != nil {
			t.Fatalf("store item key: got error %v, want none", err)
		}
		c, err := canonical(cm)
		if err != nil {
			t.Fatalf("store item %s: got error %v, want none", k, err)
		}
		out = append(out, objectState{Key: k, RV: cm.ResourceVersion, Content: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// truthState renders the final state of the log the server served.
func truthState(t testing.TB, l *history.Log) []objectState {
	t.Helper()
	var out []objectState
	for _, o := range l.StateAt(l.End()) {
		var cm corev1.ConfigMap
		if err := json.Unmarshal(o.Raw, &cm); err != nil {
			t.Fatalf("truth object %s: got error %v, want none", o.Key(), err)
		}
		c, err := canonical(&cm)
		if err != nil {
			t.Fatalf("truth object %s: got error %v, want none", o.Key(), err)
		}
		out = append(out, objectState{Key: o.Key(), RV: o.ResourceVersion, Content: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// diffStates lists how got differs from want, one line per key; nil when
// they are equal in keys, resourceVersions and content.
func diffStates(got, want []objectState) []string {
	g := map[string]objectState{}
	for _, o := range got {
		g[o.Key] = o
	}
	w := map[string]objectState{}
	for _, o := range want {
		w[o.Key] = o
	}
	var out []string
	for _, o := range want {
		x, ok := g[o.Key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: missing (want %s)", o.Key, o))
		case x.RV != o.RV:
			out = append(out, fmt.Sprintf("%s: got rv %s, want %s", o.Key, x.RV, o.RV))
		case x.Content != o.Content:
			out = append(out, fmt.Sprintf("%s@%s: content differs: %s", o.Key, o.RV, contentDiff(x.Content, o.Content)))
		}
	}
	for _, o := range got {
		if _, ok := w[o.Key]; !ok {
			out = append(out, fmt.Sprintf("%s: extra (got %s)", o.Key, o))
		}
	}
	sort.Strings(out)
	return out
}

// contentDiff names the first fields whose values differ.
func contentDiff(got, want string) string {
	var g, w map[string]any
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return fmt.Sprintf("got %s, want %s", got, want)
	}
	var paths []string
	walkDiff("", g, w, &paths)
	if len(paths) > 5 {
		paths = append(paths[:5], "...")
	}
	return fmt.Sprintf("fields %q", paths)
}

func walkDiff(prefix string, g, w any, paths *[]string) {
	gm, gok := g.(map[string]any)
	wm, wok := w.(map[string]any)
	if !gok || !wok {
		if !reflect.DeepEqual(g, w) {
			*paths = append(*paths, fmt.Sprintf("%s: got %v, want %v", prefix, g, w))
		}
		return
	}
	keys := map[string]bool{}
	for k := range gm {
		keys[k] = true
	}
	for k := range wm {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		walkDiff(prefix+"."+k, gm[k], wm[k], paths)
	}
}

// keys renders a state as "key@rv" strings.
func keys(s []objectState) []string {
	out := make([]string, len(s))
	for i, o := range s {
		out[i] = o.String()
	}
	return out
}
