// Package eck fuzzes the Beat controller of the Elastic Cloud on Kubernetes
// operator (github.com/elastic/cloud-on-k8s/v3) with lwreplay, as a user of
// lwreplay would: its own Add function, the manager options of its cmd.
package eck
