package recorder

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

func secretHistory(t *testing.T) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	var secrets []*corev1.Secret
	for k := range 6 {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("s%d", k),
			Annotations:   map[string]string{"owner": fmt.Sprintf("annotation-secret-%d", k)},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "managed-by-test", Operation: metav1.ManagedFieldsOperationApply}}},
			Data: map[string][]byte{"password": []byte(fmt.Sprintf("pw-value-%d", k%2)), "shared": []byte("shared-value")}}
		b.Add(s)
		secrets = append(secrets, s)
	}
	b.Snapshot()
	for k := range 12 {
		s := secrets[k%len(secrets)]
		s.Data["rotated"] = []byte(fmt.Sprintf("rotated-value-%d", k))
		b.Update(s)
	}
	h, err := b.History()
	if err != nil {
		t.Fatalf("secret history: got error %v, want none", err)
	}
	return h
}

func TestRecordRedactsSecrets(t *testing.T) {
	t.Parallel()
	h := secretHistory(t)
	tests := []struct {
		name      string
		watchList bool
	}{
		{name: "redaction - Secrets by WatchList - values, annotations, managedFields never written - pass", watchList: true},
		{name: "redaction - Secrets by LIST and WATCH - values, annotations, managedFields never written - pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			synctest.Test(t, func(t *testing.T) {
				dir := t.TempDir()
				rec, err := New(filepath.Join(dir, "rec.yaml"), WithRedactSecrets(true), WithRedactFields(".metadata.annotations"), WithKeepManagedFields(false))
				if err != nil {
					t.Fatalf("New: got error %v, want none", err)
				}
				var clientData string
				cs := recordedClient(t, replayer.New(h), rec)
				base := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "secrets", "", fields.Everything())
				var lw cache.ListerWatcher = base
				if !tt.watchList {
					lw = cache.ToListWatcherWithWatchListSemantics(base, testutil.NoWatchList{})
				}
				inf := cache.NewSharedIndexInformer(lw, &corev1.Secret{}, 0, cache.Indexers{})
				ctx, cancel := context.WithCancel(t.Context())
				var wg sync.WaitGroup
				wg.Go(func() { inf.RunWithContext(ctx) })
				cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
				time.Sleep(h.Span + time.Second)
				synctest.Wait()
				if o, ok, _ := inf.GetStore().GetByKey("ns/s1"); ok {
					clientData = string(o.(*corev1.Secret).Data["password"])
				}
				cancel()
				wg.Wait()
				if err := rec.Close(); err != nil {
					t.Fatalf("Close: got error %v, want none", err)
				}
				if clientData != "pw-value-1" {
					t.Errorf("client's secret data: got %q, want the original %q", clientData, "pw-value-1")
				}
				text := dirText(t, dir)
				for _, secret := range []string{"pw-value-", "shared-value", "rotated-value-", "annotation-secret-", "managed-by-test", "managedFields", bearerToken} {
					for _, form := range []string{secret, b64(secret)[:len(b64(secret))-4]} {
						if strings.Contains(text, form) {
							t.Errorf("files: got %q in them, want it nowhere", form)
						}
					}
				}
				_, got := loadDir(t, dir)
				sameLog(t, got.Logs[0], h.Logs[0])
				shared := map[string]bool{}
				for _, o := range got.Logs[0].StateAt(got.Logs[0].End()) {
					var s corev1.Secret
					if err := jsonUnmarshal(o.Raw, &s); err != nil {
						t.Fatalf("recorded secret %s: got error %v, want none", o.Key(), err)
					}
					shared[string(s.Data["shared"])] = true
					if s.Annotations["owner"] != Redacted {
						t.Errorf("recorded annotation of %s: got %q, want %q", o.Key(), s.Annotations["owner"], Redacted)
					}
				}
				if len(shared) != 1 {
					t.Errorf("replacements of one shared value: got %d distinct, want 1", len(shared))
				}
			})
		})
	}
}
