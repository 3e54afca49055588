package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/replayer/verbatim"
)

// runServeWith is serve, with o's actors for --actors.
func runServeWith(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) error {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (port 0: any free port); beyond loopback, anyone who reaches it reads the cassette (a warning says so)")
	insecureHTTP := fs.Bool("insecure-http", false, "serve plain HTTP instead of HTTPS with a fresh self-signed CA")
	kubeconfig := fs.String("write-kubeconfig", "", "write a kubeconfig for the server here (default: a file in the temp dir, removed on exit)")
	paceFlag := fs.String("pace", "max", "how fast recorded events come: max, recorded, or a factor such as 10x")
	compaction := fs.String("compaction", "", "resourceVersion before which requests get 410 Expired (default: each resource's first)")
	faultFlags := fs.StringArray("fault", nil, "a fault to apply, e.g. close-watch:after=5 (repeatable; see docs/faults.md's fault table)")
	planFile := fs.String("plan", "", "a fault plan file")
	readOnly := fs.Bool("read-only", false, "answer every write 405, as a recording does not change (default: writes are applied on top of the recording)")
	expectOwn := fs.Bool("expect-own-writes", false, "the cassette's recorded writes are the client's own (recorded through recorder.Wrap): leave their echoes out, so the client replayed makes them again")
	actorNames := fs.StringSlice("actors", nil, "the cluster's own controllers to run beside the replay, e.g. kube-controller-manager,scheduler,kubelet (the lwreplay of "+ActorsModule+" has them)"+actorsKnown(o))
	salvage := addSalvageFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	actors, err := lookupActors(o, *actorNames)
	if err != nil {
		return err
	}
	if len(actors) > 0 && *readOnly {
		return fmt.Errorf("%w: --actors with --read-only: the actors write", errUsage)
	}
	if err := checkServeFlags(fs, *addr); err != nil {
		return err
	}
	pace, err := replayer.ParsePace(*paceFlag)
	if err != nil {
		return fmt.Errorf("%w: --pace: %v", errUsage, err)
	}
	if len(fs.Args()) == 0 {
		return fmt.Errorf("%w: name at least one cassette file or directory", errUsage)
	}
	plan, err := loadPlan(*faultFlags, *planFile)
	if err != nil {
		return err
	}
	files, h, err := loadOne("serve", fs.Args(), *salvage, stderr)
	if err != nil {
		return err
	}
	if cassette.IsVerbatim(files...) {
		if err := checkVerbatimFlags(fs); err != nil {
			return err
		}
		v, err := verbatim.New(files...)
		if err != nil {
			return err
		}
		return serveHandler(ctx, v, endpoint{*addr, *insecureHTTP, *kubeconfig}, "a reproducer, verbatim", reproducerHint(verbatim.Describe(files...)), stdout, stderr)
	}
	opts := []replayer.Option{replayer.WithPace(pace), replayer.WithPlan(plan), replayer.WithStormHandler(stormWarner(stderr))}
	opts = append(opts, replayer.ForActors(actors)...)
	if *readOnly {
		opts = append(opts, replayer.WithReadOnly())
	}
	if *expectOwn {
		if h, err = history.WithoutOwn(h, nil); err != nil {
			return err
		}
	}
	if *compaction != "" {
		if err := checkCompaction(h, *compaction); err != nil {
			return err
		}
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
	actx, stopActors := context.WithCancel(ctx)
	defer stopActors()
	waitActors := startActors(actx, srv, actors, stderr)
	if len(actors) > 0 {
		fmt.Fprintf(stdout, "actors: %s\n", actorList(actors))
	}
	err = serveHandler(ctx, srv, endpoint{*addr, *insecureHTTP, *kubeconfig}, "pace "+pace.String(), kubectlHint(firstResource(srv)), stdout, stderr)
	stopActors()
	if aerr := waitActors(); aerr != nil && err == nil {
		err = aerr
	}
	if fired := srv.Fired(); len(fired) > 0 {
		fmt.Fprintf(stdout, "faults fired: %s\n", faults.Story(fired))
	}
	return err
}

// kubectlHint suggests a kubectl command that watches resource.
func kubectlHint(resource string) func(kubeconfig string) string {
	return func(kubeconfig string) string {
		return fmt.Sprintf("try: kubectl --kubeconfig %s get %s -A -w", kubeconfig, resource)
	}
}

// reproducerHint says what a reproducer replays for: the client whose
// requests it holds; no kubectl command, whose requests it does not hold.
func reproducerHint(r verbatim.Reproduction) func(kubeconfig string) string {
	return func(string) string {
		return "replays " + r.String() + "\n" +
			"each answered once, in recorded order; any other request (kubectl's among them) gets 404: point the client that made them at the kubeconfig"
	}
}

// endpoint is where serve listens and writes its kubeconfig.
type endpoint struct {
	addr         string
	insecureHTTP bool
	kubeconfig   string // "" for a file in the temp dir, removed on exit
}

// serveHandler serves h on the endpoint until ctx ends, writing a
// kubeconfig for it. It warns on stderr when more than this machine can
// reach it. hint, given the kubeconfig's path, says how to use it.
func serveHandler(ctx context.Context, h http.Handler, ep endpoint, what string, hint func(kubeconfig string) string, stdout, stderr io.Writer) error {
	var opts []replayer.ServeOption
	if ep.insecureHTTP {
		opts = append(opts, replayer.WithInsecureHTTP())
	}
	e, err := replayer.Listen(ep.addr, opts...)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	path := ep.kubeconfig
	if path == "" {
		path = filepath.Join(os.TempDir(), "lwreplay-"+strconv.Itoa(os.Getpid())+".kubeconfig")
		defer os.Remove(path)
	}
	if err := e.WriteKubeconfig(path); err != nil {
		e.Close()
		return err
	}
	if !e.Loopback() {
		fmt.Fprintf(stderr, "lwreplay serve: warning: listening on %s, beyond loopback: anyone who can reach it reads the cassette; the server asks for no credentials\n", e.Addr())
	}
	fmt.Fprintf(stdout, "serving on %s (%s)\n", e.URL, what)
	fmt.Fprintf(stdout, "kubeconfig: %s\n", path)
	fmt.Fprintln(stdout, hint(path))
	return e.Serve(ctx, h)
}

// stormWarner returns a storm handler that says on w, once per storm,
// that a client storms the server. The server keeps answering it, as
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

// loadPlan reads a --plan file and --fault values into one plan, the
// file's decisions first. The --fault values are parsed before the file is
// read. A value or a file's contents that do not parse are usage errors. A
// file that cannot be read is a failure.
func loadPlan(specs []string, file string) (faults.Plan, error) {
	var flags []faults.Decision
	for _, s := range specs {
		d, err := faults.ParseFault(s)
		if err != nil {
			return faults.Plan{}, fmt.Errorf("%w: --fault %q: %v", errUsage, s, err)
		}
		flags = append(flags, d)
	}
	var p faults.Plan
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return p, fmt.Errorf("--plan: %w", err)
		}
		if p, err = faults.ParsePlan(data); err != nil {
			return p, fmt.Errorf("%w: --plan %s: %w", errUsage, file, err)
		}
	}
	p.Decisions = append(p.Decisions, flags...)
	return p, nil
}

func firstResource(s *replayer.Server) string {
	if logs := s.Truth().Logs; len(logs) > 0 {
		return logs[0].Resource.Name()
	}
	return "configmaps"
}
