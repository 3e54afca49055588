package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/replayer"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (port 0: any free port)")
	kubeconfig := fs.String("write-kubeconfig", "", "write a kubeconfig for the server here (default: a file in the temp dir, removed on exit)")
	paceFlag := fs.String("pace", "max", "how fast recorded events come: max, recorded, or a factor such as 10x")
	compaction := fs.String("compaction", "", "resourceVersion before which requests get 410 Expired (default: each resource's first)")
	faultFlags := fs.StringArray("fault", nil, "a fault to apply, e.g. close-watch:after=5 (repeatable; see README's fault table)")
	planFile := fs.String("plan", "", "a fault plan file")
	salvage := addSalvageFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	plan, err := loadPlan(*faultFlags, *planFile)
	if err != nil {
		return err
	}
	pace, err := replayer.ParsePace(*paceFlag)
	if err != nil {
		return fmt.Errorf("%w: --pace: %v", errUsage, err)
	}
	files, h, err := loadOne("serve", fs.Args(), *salvage, stderr)
	if err != nil {
		return err
	}
	if cassette.IsVerbatim(files...) {
		if len(plan.Decisions) > 0 {
			return fmt.Errorf("%w: a reproducer cassette replays as recorded; it takes no --fault or --plan", errUsage)
		}
		v, err := replayer.NewVerbatim(files...)
		if err != nil {
			return err
		}
		return serveHandler(ctx, v, *addr, *kubeconfig, "a reproducer, verbatim", "configmaps", stdout)
	}
	opts := []replayer.Option{replayer.WithPace(pace), replayer.WithPlan(plan), replayer.WithStormHandler(stormWarner(stderr))}
	if *compaction != "" {
		opts = append(opts, replayer.WithCompaction(*compaction))
	}
	srv := replayer.New(h, opts...)
	for _, lg := range srv.Truth().Logs {
		fmt.Fprintf(stdout, "resource %s: %d objects, %d events, resourceVersions %s..%s\n",
			lg.Resource, len(lg.Initial), lg.End(), lg.StartRV, lg.LastRV())
	}
	if len(plan.Decisions) > 0 {
		fmt.Fprintf(stdout, "plan: %s\n", faults.Describe(plan))
	}
	err = serveHandler(ctx, srv, *addr, *kubeconfig, "pace "+pace.String(), firstResource(srv), stdout)
	if fired := srv.Fired(); len(fired) > 0 {
		fmt.Fprintf(stdout, "faults fired: %s\n", faults.Story(fired))
	}
	return err
}

// serveHandler serves h on addr until ctx ends, writing a kubeconfig for it.
func serveHandler(ctx context.Context, h http.Handler, addr, kubeconfig, what, resource string, stdout io.Writer) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	url := "http://" + l.Addr().String()
	path := kubeconfig
	if path == "" {
		path = filepath.Join(os.TempDir(), "lwreplay-"+strconv.Itoa(os.Getpid())+".kubeconfig")
		defer os.Remove(path)
	}
	if err := replayer.WriteKubeconfig(path, url); err != nil {
		l.Close()
		return err
	}
	fmt.Fprintf(stdout, "serving on %s (%s)\n", url, what)
	fmt.Fprintf(stdout, "kubeconfig: %s\n", path)
	fmt.Fprintf(stdout, "try: kubectl --kubeconfig %s get %s -A -w\n", path, resource)
	return replayer.ServeHandler(ctx, h, l)
}

// stormWarner returns a storm handler that says on w, once per storm,
// that a client storms the server; the server keeps answering it, as
// kube-apiserver would.
func stormWarner(w io.Writer) func(replayer.StormReport) {
	var mu sync.Mutex
	return func(r replayer.StormReport) {
		hint := ""
		if r.EndedBeforeInitialEventsEnd > 0 {
			hint = "; client-go restarts a WatchList stream that ends before its initial-events-end bookmark at once, " +
				"with no backoff (kubernetes/kubernetes#140890)"
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "lwreplay serve: warning: request storm #%d: %s (more than %d within %s)%s; still serving\n",
			r.Episode, r, r.Limit, r.Window, hint)
	}
}

// loadPlan reads --fault values and a --plan file into one plan.
func loadPlan(specs []string, file string) (faults.Plan, error) {
	var p faults.Plan
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return p, fmt.Errorf("--plan: %w", err)
		}
		if p, err = faults.ParsePlan(data); err != nil {
			return p, fmt.Errorf("--plan %s: %w", file, err)
		}
	}
	for _, s := range specs {
		d, err := faults.ParseFault(s)
		if err != nil {
			return p, fmt.Errorf("%w: --fault %q: %v", errUsage, s, err)
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p, nil
}

func firstResource(s *replayer.Server) string {
	if logs := s.Truth().Logs; len(logs) > 0 {
		if r := logs[0].Resource; r.Group != "" {
			return r.Resource + "." + r.Group
		}
		return logs[0].Resource.Resource
	}
	return "configmaps"
}
