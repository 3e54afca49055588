// Package eck fuzzes the Beat controller of the Elastic Cloud on Kubernetes
// operator (github.com/elastic/cloud-on-k8s/v3) with lwreplay. It does so
// as a user of lwreplay would: with its own Add function, and the manager
// options of its cmd.
package eck
