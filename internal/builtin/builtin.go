// Package builtin holds client-go's built-in kinds in a scheme of their
// own. client-go's scheme.Scheme is the process's: an operator's main
// registers its own kinds into it (ECK's controllerscheme.SetupScheme
// does). A kind found there may be a custom resource, which kube-apiserver
// holds unstructured, never through the operator's Go type.
package builtin

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
)

// Scheme is client-go's built-in kinds alone.
var Scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = scheme.AddToScheme(s) // client-go's own groups always register
	return s
}()

// Codecs are Scheme's serializers: JSON, YAML and protobuf.
var Codecs = serializer.NewCodecFactory(Scheme)
