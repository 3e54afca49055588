package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// ControllerManagerControllers are the kube-controller-manager controllers
// StartControllerManager runs unless told otherwise. They are the ones the
// actors module runs as actors: statefulset, replicaset, deployment, job,
// daemonset, endpointslice, namespace, garbage collector.
var ControllerManagerControllers = []string{
	"statefulset-controller",
	"replicaset-controller",
	"deployment-controller",
	"job-controller",
	"daemonset-controller",
	"endpointslice-controller",
	"namespace-controller",
	"garbage-collector-controller",
}

// ControllerManagerOption configures StartControllerManager.
type ControllerManagerOption func(*controllerManagerOptions)

type controllerManagerOptions struct {
	controllers []string
	extraFlags  []string
}

// WithControllers sets the controllers kube-controller-manager runs (its
// --controllers, by their names in k8s.io/kubernetes/cmd/kube-controller-manager/names).
func WithControllers(names ...string) ControllerManagerOption {
	return func(o *controllerManagerOptions) { o.controllers = names }
}

// WithControllerManagerFlags appends flags to kube-controller-manager's
// command line; a later flag overrides an earlier one of the same name.
func WithControllerManagerFlags(flags ...string) ControllerManagerOption {
	return func(o *controllerManagerOptions) { o.extraFlags = append(o.extraFlags, flags...) }
}

// StartControllerManager starts kube-controller-manager against the
// Cluster as its admin User. It has no service account credentials,
// leader election off, and default sync periods. It returns once
// its /healthz answers ok. Stop stops it first. A binary directory
// without kube-controller-manager is ErrBuild (a test skips, as
// Skip says).
func (c *Cluster) StartControllerManager(ctx context.Context, opts ...ControllerManagerOption) error {
	o := controllerManagerOptions{controllers: ControllerManagerControllers}
	for _, opt := range opts {
		opt(&o)
	}
	if c.controllerManagerBin == "" {
		return fmt.Errorf("%w: %w: no kube-controller-manager-%s next to kube-apiserver (run e2e/build-cluster.sh)",
			ErrBuild, ErrBinaries, KubeVersion)
	}
	if c.controllerManager != nil {
		return fmt.Errorf("%w: kube-controller-manager already started", ErrStart)
	}
	kubeconfig := filepath.Join(c.dir, "kube-controller-manager.kubeconfig")
	if err := c.WriteKubeconfig(kubeconfig); err != nil {
		return err
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	url := "https://127.0.0.1:" + strconv.Itoa(ports[0])
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--controllers=" + strings.Join(o.controllers, ","),
		"--leader-elect=false",
		"--use-service-account-credentials=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(ports[0]),
		"--cert-dir=" + filepath.Join(c.dir, "kube-controller-manager-certs"),
		// no client rate limit, as RestConfig has none
		"--kube-api-qps=10000",
		"--kube-api-burst=10000",
	}
	args = append(args, o.extraFlags...)
	p, err := startProcess("kube-controller-manager", c.controllerManagerBin,
		filepath.Join(c.dir, "kube-controller-manager.log"), args...)
	if err != nil {
		return err
	}
	c.controllerManager = p
	ctx, cancel := context.WithTimeout(ctx, DefaultStartTimeout)
	defer cancel()
	// /healthz is one of the paths kube-controller-manager always allows.
	return c.waitReady(ctx, url+"/healthz", "", p)
}
