// Package cassharness fuzzes k8ssandra/cass-operator's CassandraDatacenter
// controller with lwreplay: the operator's manager, built as its cmd/main.go
// builds it, runs on cassettes recorded from a real kube-apiserver.
package cassharness
