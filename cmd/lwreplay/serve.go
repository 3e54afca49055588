package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lwreplay/lwreplay/replayer"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (port 0: any free port)")
	kubeconfig := fs.String("write-kubeconfig", "", "write a kubeconfig for the server here (default: a file in the temp dir, removed on exit)")
	paceFlag := fs.String("pace", "max", "how fast recorded events come: max, recorded, or a factor such as 10x")
	compaction := fs.String("compaction", "", "resourceVersion before which requests get 410 Expired (default: each resource's first)")
	if err := parse(fs, args); err != nil {
		return err
	}
	pace, err := replayer.ParsePace(*paceFlag)
	if err != nil {
		return fmt.Errorf("%w: --pace: %v", errUsage, err)
	}
	h, err := loadHistory(fs.Args())
	if err != nil {
		return err
	}
	opts := []replayer.Option{replayer.WithPace(pace)}
	if *compaction != "" {
		opts = append(opts, replayer.WithCompaction(*compaction))
	}
	srv := replayer.New(h, opts...)
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	url := "http://" + l.Addr().String()
	path := *kubeconfig
	if path == "" {
		path = filepath.Join(os.TempDir(), "lwreplay-"+strconv.Itoa(os.Getpid())+".kubeconfig")
		defer os.Remove(path)
	}
	if err := replayer.WriteKubeconfig(path, url); err != nil {
		l.Close()
		return err
	}
	for _, lg := range h.Logs {
		fmt.Fprintf(stdout, "resource %s: %d objects, %d events, resourceVersions %s..%s\n",
			lg.Resource, len(lg.Initial), lg.End(), lg.StartRV, lg.LastRV())
	}
	fmt.Fprintf(stdout, "serving on %s (pace %s)\n", url, pace)
	fmt.Fprintf(stdout, "kubeconfig: %s\n", path)
	fmt.Fprintf(stdout, "try: kubectl --kubeconfig %s get %s -A -w\n", path, firstResource(srv))
	return srv.Serve(ctx, l)
}

func firstResource(s *replayer.Server) string {
	if logs := s.History().Logs; len(logs) > 0 {
		if r := logs[0].Resource; r.Group != "" {
			return r.Resource + "." + r.Group
		}
		return logs[0].Resource.Resource
	}
	return "configmaps"
}
