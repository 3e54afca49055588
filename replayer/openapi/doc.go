// Package openapi serves the OpenAPI documents of a replay as
// kube-apiserver serves them: /openapi/v2, /openapi/v3 and its group
// version documents. So kubectl's default validation works. kubectl 1.27
// and later read the v3 document of a kind's group version. When its PATCH
// operation takes the fieldValidation parameter, they leave validation to
// the server (fieldValidation=Strict). Otherwise they validate the object
// against /openapi/v2 themselves. kubectl apply also reads the kind's
// schema for its strategic merge patch.
//
// The built-in resources' documents are kube-apiserver v1.37.2's, as it
// served them (embedded, 0.95 MB gzipped). They are the most faithful,
// and smaller than the code kube-openapi would need to build them. (The
// definitions openapi-gen makes from k8s.io/api live in k8s.io/kubernetes.
// The paths come from kube-apiserver's endpoint installer.)
//
// A custom resource's documents are built from its CRD as
// kube-apiserver's apiextensions builder builds them. They start from the
// documents kube-apiserver built for two template CRDs (recorded with the
// rest). Those are renamed, and the CRD's schema made into its kind's
// schema.
package openapi
