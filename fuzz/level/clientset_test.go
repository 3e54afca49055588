package level

import (
	"reflect"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// wireOnlyGroups are the group clients only some supported client-go
// versions have, which memoClientset takes from its embedded wire
// clientset.
var wireOnlyGroups = map[string]bool{
	"AutoscalingV2beta1": true, "AutoscalingV2beta2": true, "SchedulingV1alpha1": true, // v0.35
	"SchedulingV1alpha2": true,                                                         // v0.36
	"LifecycleV1alpha1":  true, "SchedulingV1alpha3": true, "StoragemigrationV1": true, // v0.37
}

func TestMemoClientsetGroups(t *testing.T) {
	t.Parallel()
	cfg := &rest.Config{Host: ReplayHost}
	memo, err := newMemoClientset(cfg, NewCache(), false)
	if err != nil {
		t.Fatalf("newMemoClientset: got error %v, want none", err)
	}
	wire, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("NewForConfig: got error %v, want none", err)
	}
	iface := reflect.TypeFor[kubernetes.Interface]()
	for i := range iface.NumMethod() {
		name := iface.Method(i).Name
		if name == "Discovery" {
			continue
		}
		through := "through the memo"
		if wireOnlyGroups[name] {
			through = "at the wire level"
		}
		t.Run("memo clientset - "+name+" - its own group version, "+through+" - pass", func(t *testing.T) {
			got := reflect.ValueOf(memo).MethodByName(name).Call(nil)[0].Interface().(restClienter).RESTClient()
			want := reflect.ValueOf(wire).MethodByName(name).Call(nil)[0].Interface().(restClienter).RESTClient()
			if got.APIVersion() != want.APIVersion() {
				t.Errorf("group version: got %s, want %s as client-go's", got.APIVersion(), want.APIVersion())
			}
			memoRC := memo.groups[want.APIVersion()]
			if wireOnlyGroups[name] && got == memoRC {
				t.Errorf("REST client: got the memo's of %s, want the embedded wire clientset's (a group only some client-go versions have)", want.APIVersion())
			}
			if !wireOnlyGroups[name] && got != memoRC {
				t.Errorf("REST client: got %p, want the memo's of %s (a group client-go added: list it in clientset_groups.go, or here if only some supported versions have it)", got, want.APIVersion())
			}
		})
	}
}
