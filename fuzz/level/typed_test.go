package level

import (
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// raceDecode decodes the same answer from n goroutines at once, sharing
// the result, and returns what each got.
func raceDecode(t *testing.T, m *memo, n int, decode func() (runtime.Object, error)) []runtime.Object {
	t.Helper()
	got := make([]runtime.Object, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			got[i], errs[i] = decode()
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("decode %d: got error %v, want none", i, err)
		}
	}
	return got
}

func TestDecodedSharedObjects(t *testing.T) {
	frame := []byte(`{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7"},"data":{"k":"v"}}}`)
	list := []byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[` +
		`{"metadata":{"name":"b","namespace":"ns","resourceVersion":"8"}},{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9"}}]}`)
	const workers = 16
	tests := []struct {
		name     string
		decode   func(m *memo) (runtime.Object, error)
		wantKeys []string // the keys of the objects handed out, in order
	}{
		{name: "decoded - watch frame decoded by 16 workers at once - one stored object, known - pass",
			decode: func(m *memo) (runtime.Object, error) {
				_, obj, err := m.event(frame, true)
				return obj, err
			}, wantKeys: []string{"ns/a"}},
		{name: "decoded - LIST body decoded by 16 workers at once - one stored list, items known - pass",
			decode:   func(m *memo) (runtime.Object, error) { return m.list(list, true) },
			wantKeys: []string{"ns/b", "ns/c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewCache()
			m, err := d.memoFor(&unstructured.Unstructured{})
			if err != nil {
				t.Fatalf("memoFor: got error %v, want none", err)
			}
			got := raceDecode(t, m, workers, func() (runtime.Object, error) { return tc.decode(m) })
			for i, obj := range got {
				if obj != got[0] {
					t.Errorf("worker %d: got its own decoded object %p, want the stored one %p", i, obj, got[0])
				}
			}
			var objs []*unstructured.Unstructured
			switch o := got[0].(type) {
			case *unstructured.Unstructured:
				objs = append(objs, o)
			case *unstructured.UnstructuredList:
				for i := range o.Items {
					objs = append(objs, &o.Items[i])
				}
			default:
				t.Fatalf("decoded: got %T, want unstructured", o)
			}
			var keys []string
			for _, u := range objs {
				ho, ok := d.Known(u)
				if !ok {
					t.Errorf("known(%s/%s): got false, want the stored object's history object", u.GetNamespace(), u.GetName())
					continue
				}
				keys = append(keys, ho.Key())
			}
			if fmt.Sprint(keys) != fmt.Sprint(tc.wantKeys) {
				t.Errorf("known keys: got %v, want %v", keys, tc.wantKeys)
			}
			d.mu.RLock()
			remembered := len(d.objects)
			d.mu.RUnlock()
			if remembered != len(tc.wantKeys) {
				t.Errorf("remembered objects: got %d, want %d (only the stored decode's)", remembered, len(tc.wantKeys))
			}
		})
	}
}
