package discovery

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/history"
)

// TestBuiltinIgnoresUserKinds registers a custom kind into client-go's
// scheme.Scheme, as an operator's main does (ECK's
// controllerscheme.SetupScheme registers Elasticsearch). The built-in
// resources derived afterwards hold none of its group: before, they held
// "elasticsearchs" (a guessed plural), which shadowed the recorded
// discovery's "elasticsearches" and sent ECK's informer to an empty
// resource.
func TestBuiltinIgnoresUserKinds(t *testing.T) {
	gv := schema.GroupVersion{Group: "elasticsearch.k8s.elastic.co", Version: "v1"}
	scheme.Scheme.AddKnownTypeWithName(gv.WithKind("Elasticsearch"), &metav1.PartialObjectMetadata{})
	scheme.Scheme.AddKnownTypeWithName(gv.WithKind("ElasticsearchList"), &metav1.PartialObjectMetadataList{})
	got := deriveBuiltin()
	tests := []struct {
		name string
		res  history.Resource
		want bool
	}{
		{name: "builtin - a kind an operator registered into client-go's scheme - fail",
			res: history.Resource{Group: gv.Group, Version: gv.Version, Resource: "elasticsearchs", Kind: "Elasticsearch", Namespaced: true}},
		{name: "builtin - core secrets beside it - pass", want: true,
			res: history.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if has := slices.Contains(got, tc.res); has != tc.want {
				t.Errorf("builtin holds %s: got %v, want %v", tc.res, has, tc.want)
			}
		})
	}
}
