// Package kuberay fuzzes the RayCluster controller of the KubeRay operator
// (github.com/ray-project/kuberay/ray-operator) with lwreplay. It does so
// as a user of lwreplay would: with the operator's own reconciler and
// SetupWithManager, and the manager options of its main.go.
package kuberay
