//go:build !linux

package cluster

import "os/exec"

// dieWithParent does nothing where the kernel cannot tie a child's life to
// its parent's.
func dieWithParent(*exec.Cmd) {}

// ownGroup leaves cmd as it is: cancelling its context kills the build
// script only.
func ownGroup(*exec.Cmd) {}
