package level

import (
	"fmt"
	"net/http"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// memoClientset is the typed level's clientset: one REST client per group
// version, as kubernetes.NewForConfig makes them, but decoding through a
// cassette's memo.
//
// It embeds the wire level's clientset of the same HTTP client. Its
// Discovery is the wire level's. So are the group clients of the group
// versions only some supported client-go versions have (those
// clientset_groups.go does not list).
type memoClientset struct {
	kubernetes.Interface
	shape       *kubernetes.Clientset // client-go's own, for each group's version
	groups      map[schema.GroupVersion]rest.Interface
	noWatchList bool
}

// newMemoClientset returns a clientset of cfg decoding through d.
func newMemoClientset(cfg *rest.Config, d *Cache, noWatchList bool) (*memoClientset, error) {
	shape, err := clientsetShape()
	if err != nil {
		return nil, err
	}
	// As kubernetes.NewForConfig: one HTTP client for every group, a user
	// agent, the rate limiter of cfg or one per group.
	c := *cfg
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	hc, err := rest.HTTPClientFor(&c)
	if err != nil {
		return nil, fmt.Errorf("%w: clientset: %w", ErrSetup, err)
	}
	if c.RateLimiter == nil && c.QPS > 0 {
		if c.Burst <= 0 {
			return nil, fmt.Errorf("%w: clientset: burst %d with QPS %v, want a burst above 0", ErrSetup, c.Burst, c.QPS)
		}
		c.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(c.QPS, c.Burst)
	}
	cs := &memoClientset{shape: shape.cs, groups: make(map[schema.GroupVersion]rest.Interface, len(shape.gvs)), noWatchList: noWatchList}
	ns := newMemoSerializer(d)
	for _, gv := range shape.gvs {
		gc := c
		gc.GroupVersion = &gv
		gc.APIPath = "/apis"
		if gv.Group == "" {
			gc.APIPath = "/api"
		}
		gc.NegotiatedSerializer = ns
		rc, err := rest.RESTClientForConfigAndClient(&gc, hc)
		if err != nil {
			return nil, fmt.Errorf("%w: clientset: REST client of %s: %w", ErrSetup, gv, err)
		}
		cs.groups[gv] = rc
	}
	if cs.Interface, err = kubernetes.NewForConfigAndClient(&c, hc); err != nil {
		return nil, fmt.Errorf("%w: clientset: %w", ErrSetup, err)
	}
	return cs, nil
}

// IsWatchListSemanticsUnSupported says whether the clientset's informers'
// reflectors list and then watch instead of asking for WatchList.
func (c *memoClientset) IsWatchListSemanticsUnSupported() bool { return c.noWatchList }

// restClienter is a group client of client-go's clientset.
type restClienter interface {
	RESTClient() rest.Interface
}

// of returns the memo's REST client of the group version of g, client-go's
// group client of the same name.
func (c *memoClientset) of(g restClienter) rest.Interface {
	return c.groups[g.RESTClient().APIVersion()]
}

// shapeOfClientset is what the typed level's clientsets take from
// client-go's: its group clients, which say their group versions.
type shapeOfClientset struct {
	cs  *kubernetes.Clientset
	gvs []schema.GroupVersion
}

// clientsetShape returns the shape of client-go's clientset, made once.
// That is a clientset of a host never asked, and the group version of every
// group client kubernetes.Interface offers (every method but Discovery).
var clientsetShape = sync.OnceValues(func() (*shapeOfClientset, error) {
	cs, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: ReplayHost}, &http.Client{})
	if err != nil {
		return nil, fmt.Errorf("%w: clientset shape: %w", ErrSetup, err)
	}
	s := &shapeOfClientset{cs: cs}
	iface := reflect.TypeFor[kubernetes.Interface]()
	v := reflect.ValueOf(cs)
	for i := range iface.NumMethod() {
		name := iface.Method(i).Name
		if name == "Discovery" {
			continue
		}
		m := v.MethodByName(name)
		if m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
			continue
		}
		if g, ok := m.Call(nil)[0].Interface().(restClienter); ok {
			s.gvs = append(s.gvs, g.RESTClient().APIVersion())
		}
	}
	return s, nil
})
