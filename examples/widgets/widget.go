package widgets

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// GroupVersion is the API group and version of Widget.
var GroupVersion = schema.GroupVersion{Group: "example.lwreplay.dev", Version: "v1"}

// Resource is the plural resource name of Widget (widgets.example.lwreplay.dev).
const Resource = "widgets"

// Widget is a namespaced custom resource with a status subresource
// (testdata/crd.yaml): the reconciler keeps one ConfigMap per widget,
// holding Spec.Data, and reports it in Status.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what a widget asks for: the data of its ConfigMap.
type WidgetSpec struct {
	// Data is copied into the widget's ConfigMap.
	Data map[string]string `json:"data,omitempty"`
}

// WidgetStatus is what the reconciler reports on a widget.
type WidgetStatus struct {
	// ConfigMap is the name of the widget's ConfigMap.
	ConfigMap string `json:"configMap,omitempty"`
	// ObservedGeneration is the widget's generation the ConfigMap holds.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// WidgetList is a list of widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}

// AddToScheme registers Widget and WidgetList under GroupVersion in s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// NewScheme returns a scheme with client-go's types and Widget: the
// scheme of the reconciler's manager.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
