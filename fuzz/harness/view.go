package harness

import (
	"reflect"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// View records what a handler called for the last delivery could read
// from the registered store (SetStore), for the consistent-view invariant.
// The handler of AddEventHandler calls it after each notification past
// the sync, and a target's own handler may do the same.
func (r *Probe) View() {
	r.mu.Lock()
	fn, n := r.store, len(r.deliveries)
	r.mu.Unlock()
	if fn == nil || n == 0 {
		return
	}
	items := fn()
	var sum uint64
	r.viewMu.Lock()
	for _, it := range items {
		s, ok := r.objectSum(it)
		if !ok {
			r.viewMu.Unlock()
			return
		}
		sum += s
	}
	r.viewMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.views = append(r.views, observe.StoreView{Delivery: n - 1, Keys: len(items), Sum: sum})
}

// objectSum is observe.ObjectSum, memoized for the shared decoded objects
// the typed level knows. A view is taken after every notification, of a
// store that mostly holds the objects of the view before. It must be
// called with viewMu held.
func (r *Probe) objectSum(obj any) (uint64, bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u == nil || u.Object == nil || r.known == nil {
		return observe.ObjectSum(obj)
	}
	p := reflect.ValueOf(u.Object).Pointer()
	if s, ok := r.sums[p]; ok {
		return s, true
	}
	s, ok := observe.ObjectSum(obj)
	if _, shared := r.known(obj); ok && shared {
		if r.sums == nil {
			r.sums = map[uintptr]uint64{}
		}
		r.sums[p] = s
	}
	return s, ok
}
