// Package eck fuzzes the Beat controller of the Elastic Cloud on Kubernetes
// operator (github.com/elastic/cloud-on-k8s/v3) with lwreplay, and its
// Agent controller on standalone Agents. It does so as a user of lwreplay
// would: with the operator's own Add functions, and the manager options
// of its cmd.
package eck
