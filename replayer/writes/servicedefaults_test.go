package writes

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestServiceDefaults creates and updates Services as kube-apiserver's
// decoder defaults them (SetDefaults_Service): each port's protocol TCP
// and targetPort its port, sessionAffinity None, type ClusterIP,
// internalTrafficPolicy Cluster. Set fields are kept. With a Defaulter,
// only the Defaulter defaults.
func TestServiceDefaults(t *testing.T) {
	services := builtinKind("", "services", "Service")
	own := services
	own.Defaulter = defaulterFunc(func(runtime.Object) {})
	tests := []struct {
		name                     string
		kind                     Kind
		verb                     Verb
		spec                     string
		wantTarget               any
		wantProtocol, wantType   string
		wantAffinity, wantPolicy string
	}{
		{"service create - a port without targetPort - pass", services, Create, `{"clusterIP":"None","ports":[{"name":"gcs","port":6379}]}`, int64(6379), "TCP", "ClusterIP", "None", "Cluster"},
		{"service update - a port without targetPort - pass", services, Update, `{"ports":[{"name":"gcs","port":6379}]}`, int64(6379), "TCP", "ClusterIP", "None", "Cluster"},
		{"service create - set fields kept - pass", services, Create, `{"type":"NodePort","sessionAffinity":"ClientIP","ports":[{"port":80,"targetPort":"http","protocol":"UDP"}]}`, "http", "UDP", "NodePort", "ClientIP", "Cluster"},
		{"service create - a Defaulter of its own - pass", own, Create, `{"ports":[{"port":80}]}`, int64(0), "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mapState{}
			if tt.verb == Update {
				res, err := Do(st, testEnv(), Request{Verb: Create, Kind: tt.kind, Namespace: "ns", Body: body(t, obj(t, tt.kind, `{"metadata":{"name":"s"},"spec":{"ports":[{"port":1}]}}`))})
				if err != nil {
					t.Fatalf("create: got %v, want nil", err)
				}
				st = mapState{"ns/s": res.Stored}
			}
			b := body(t, obj(t, tt.kind, `{"metadata":{"name":"s"},"spec":`+tt.spec+`}`))
			res, err := Do(st, testEnv(), Request{Verb: tt.verb, Kind: tt.kind, Namespace: "ns", Name: "s", Body: b})
			if err != nil {
				t.Fatalf("%s: got %v, want nil", tt.verb, err)
			}
			o := res.Stored.Object
			ports, _, _ := unstructured.NestedSlice(o, "spec", "ports")
			if len(ports) != 1 {
				t.Fatalf("ports: got %v, want one", ports)
			}
			p := ports[0].(map[string]any)
			if got := p["targetPort"]; got != tt.wantTarget {
				t.Errorf("targetPort: got %v (%T), want %v", got, got, tt.wantTarget)
			}
			if got, _ := p["protocol"].(string); got != tt.wantProtocol {
				t.Errorf("protocol: got %q, want %q", got, tt.wantProtocol)
			}
			for _, f := range []struct{ field, want string }{{"type", tt.wantType}, {"sessionAffinity", tt.wantAffinity}, {"internalTrafficPolicy", tt.wantPolicy}} {
				if got, _, _ := unstructured.NestedString(o, "spec", f.field); got != f.want {
					t.Errorf("%s: got %q, want %q", f.field, got, f.want)
				}
			}
		})
	}
}
