package testutil

import (
	"fmt"
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// Changes chooses what GeneratedHistory's changes that are neither adds
// nor deletes do, and what data its configmaps hold.
type Changes int

const (
	// EscapedData: configmaps hold data whose JSON needs escaping
	// (quotes, braces, a backslash). Every change that is neither an add
	// nor a delete rewrites a configmap's data. A recorder must keep it
	// byte for byte.
	EscapedData Changes = iota
	// LabelFlips: configmaps hold no data at first. Half of the changes
	// that are neither adds nor deletes flip a configmap's app label,
	// moving it in or out of a label selector. The other half rewrite
	// its data.
	LabelFlips
)

// GeneratedHistory is a seeded history of n configmaps, cm-0000 on,
// alternately in namespaces ns0 and ns1, with a random app=x or app=y
// label. m random changes follow: a fifth adds, a fifth deletes, the rest
// as changes says. The same arguments give the same history.
func GeneratedHistory(t testing.TB, n, m int, seed int64, changes Changes) *history.History {
	t.Helper()
	rnd := rand.New(rand.NewSource(seed))
	app := func() map[string]string { return map[string]string{"app": []string{"x", "y"}[rnd.Intn(2)]} }
	b := synth.NewBuilder()
	var live []*corev1.ConfigMap
	next := 0
	add := func() {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns%d", next%2), Name: fmt.Sprintf("cm-%04d", next), Labels: app()}}
		if changes == EscapedData {
			cm.Data = map[string]string{"k": "{\"json\": \"}\"}"}
		}
		next++
		b.Add(cm)
		live = append(live, cm)
	}
	for range n {
		add()
	}
	b.Snapshot()
	for i := range m {
		switch k := rnd.Intn(10); {
		case k < 2 || len(live) == 0:
			add()
		case k < 4:
			j := rnd.Intn(len(live))
			b.Delete(live[j])
			live = append(live[:j], live[j+1:]...)
		case k < 6 && changes == LabelFlips:
			cm := live[rnd.Intn(len(live))]
			cm.Labels = app()
			b.Update(cm)
		default:
			cm := live[rnd.Intn(len(live))]
			cm.Data = map[string]string{"n": fmt.Sprint(i)}
			if changes == EscapedData {
				cm.Data["quote"] = `"\`
			}
			b.Update(cm)
		}
	}
	h, err := b.History()
	if err != nil {
		t.Fatalf("generated history: got error %v, want none", err)
	}
	return h
}

// SynthHistory builds the history of a synthetic cassette of
// configmaps and pods (synth.Generate, seed 1, LIST pages of 500). It
// has objects in the initial state, then events changes.
func SynthHistory(tb testing.TB, objects, events int) *history.History {
	tb.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: objects, Events: events, Seed: 1, PageSize: 500, MaxMemory: 16 << 30})
	if err != nil {
		tb.Fatalf("Generate: got error %v, want none", err)
	}
	f.Path = "scale.yaml"
	h, err := history.Build(f)
	if err != nil {
		tb.Fatalf("Build: got error %v, want none", err)
	}
	return h
}
