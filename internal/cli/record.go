package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/lwreplay/lwreplay/recorder"
	"github.com/lwreplay/lwreplay/recorder/capture"
)

// recordProgressInterval is how often record refreshes its progress line.
var recordProgressInterval = time.Second

// recordProgressHook, when set, sees every progress report of record.
var recordProgressHook func(capture.Progress)

// recordFlags are the parsed flags of record.
type recordFlags struct {
	kubeconfig, context      string
	resources                []string
	namespace                string
	allNamespaces            bool
	selector, fieldSelector  string
	duration                 time.Duration
	watchList                capture.WatchListMode
	pageSize                 int64
	output                   string
	flushInterval            time.Duration
	maxSize                  int64
	redactSecrets            bool
	redactFields             []string
	keepManagedFields        bool
	namespaceSet, contextSet bool
}

func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseRecordFlags(args, stderr)
	if err != nil {
		return err
	}
	// client-go logs list and watch failures; record reports them itself
	// (progress line and summary), so its log would only garble the
	// progress line.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	loader := clientcmd.NewDefaultClientConfigLoadingRules()
	loader.ExplicitPath = f.kubeconfig
	kc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loader, &clientcmd.ConfigOverrides{CurrentContext: f.context})
	restConfig, err := kc.ClientConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	namespace := f.namespace
	if !f.allNamespaces && !f.namespaceSet {
		if namespace, _, err = kc.Namespace(); err != nil {
			return fmt.Errorf("kubeconfig: %w", err)
		}
	}
	rec, err := recorder.New(f.output,
		recorder.WithFlushInterval(f.flushInterval),
		recorder.WithMaxSize(f.maxSize),
		recorder.WithRedactSecrets(f.redactSecrets),
		recorder.WithRedactFields(f.redactFields...),
		recorder.WithKeepManagedFields(f.keepManagedFields))
	if err != nil {
		return err
	}
	tty := isTerminal(stderr)
	last, runErr := capture.Run(ctx, capture.Config{
		RestConfig:       restConfig,
		Resources:        f.resources,
		Namespace:        namespace,
		LabelSelector:    f.selector,
		FieldSelector:    f.fieldSelector,
		WatchList:        f.watchList,
		PageSize:         f.pageSize,
		Duration:         f.duration,
		Recorder:         rec,
		ProgressInterval: recordProgressInterval,
		Progress: func(p capture.Progress) {
			if recordProgressHook != nil {
				recordProgressHook(p)
			}
			if tty {
				fmt.Fprintf(stderr, "\r%s\x1b[K", progressLine(p))
			}
		},
	})
	if tty {
		fmt.Fprint(stderr, "\r\x1b[K")
	}
	closeErr := rec.Close()
	if runErr != nil && ctx.Err() == nil {
		// Nothing but discovery was recorded: leave no cassette behind.
		for _, name := range rec.Stats().Files {
			os.Remove(name)
		}
		return runErr
	}
	if closeErr != nil {
		return closeErr
	}
	writeSummary(stdout, f.output, last, rec.Stats())
	return nil
}

// parseRecordFlags parses and checks record's flags; every error is a
// usage error.
func parseRecordFlags(args []string, stderr io.Writer) (*recordFlags, error) {
	var f recordFlags
	fs := newFlags("record", stderr)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context to use (default: the current context)")
	fs.StringSliceVar(&f.resources, "resource", nil, "resources to record, comma-separated or repeated: pods, deployments.apps, cm, a CRD's plural (required)")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "namespace to record (default: the context's namespace)")
	fs.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "record every namespace")
	fs.StringVarP(&f.selector, "selector", "l", "", "label selector for every LIST and WATCH")
	fs.StringVar(&f.fieldSelector, "field-selector", "", "field selector for every LIST and WATCH")
	fs.DurationVar(&f.duration, "duration", 0, "stop after this long (default: until interrupted)")
	watchList := fs.String("watchlist", "auto", "initial state by WatchList stream: auto (client-go's default and KUBE_FEATURE_WatchListClient; off with --page-size), on, or off (LIST then WATCH)")
	fs.Int64Var(&f.pageSize, "page-size", 0, "LIST in pages of this many objects, the first as a consistent read (0: as client-go asks); with --watchlist auto, turns WatchList off")
	fs.StringVarP(&f.output, "output", "o", "", "cassette file to write (must end in .yaml; required)")
	fs.DurationVar(&f.flushInterval, "flush-interval", 5*time.Second, "how often the cassette is written")
	maxSize := fs.String("max-size", "16Mi", "size at which the recording goes on in a numbered next file (bytes, or a quantity such as 16Mi)")
	fs.BoolVar(&f.redactSecrets, "redact-secrets", false, "replace the data of Secrets consistently")
	fs.StringArrayVar(&f.redactFields, "redact-field", nil, "redact the values at this JSONPath (repeatable)")
	fs.BoolVar(&f.keepManagedFields, "keep-managed-fields", true, "keep metadata.managedFields (--keep-managed-fields=false drops them)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	f.namespaceSet, f.contextSet = fs.Changed("namespace"), fs.Changed("context")
	mode, err := capture.ParseWatchListMode(*watchList)
	if err != nil {
		return nil, fmt.Errorf("%w: --watchlist %q: want auto, on or off", errUsage, *watchList)
	}
	f.watchList = mode
	if f.maxSize, err = positiveQuantity("max-size", *maxSize); err != nil {
		return nil, err
	}
	if err := nonEmpty(fs, "kubeconfig"); err != nil {
		return nil, err
	}
	if err := f.check(fs.Args()); err != nil {
		return nil, err
	}
	return &f, nil
}

// check validates flag values and combinations.
func (f *recordFlags) check(rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("%w: unexpected arguments %v (name resources with --resource)", errUsage, rest)
	case len(f.resources) == 0:
		return fmt.Errorf("%w: --resource R[,R...] is required", errUsage)
	case f.allNamespaces && f.namespaceSet:
		return fmt.Errorf("%w: --namespace and --all-namespaces exclude each other", errUsage)
	case f.namespaceSet && f.namespace == "":
		return fmt.Errorf("%w: --namespace must not be empty (use --all-namespaces)", errUsage)
	case f.contextSet && f.context == "":
		return fmt.Errorf("%w: --context must not be empty", errUsage)
	case f.duration < 0:
		return fmt.Errorf("%w: --duration must not be negative", errUsage)
	case f.pageSize < 0:
		return fmt.Errorf("%w: --page-size must not be negative", errUsage)
	case f.flushInterval <= 0:
		return fmt.Errorf("%w: --flush-interval must be positive", errUsage)
	}
	if err := checkOutput(f.output); err != nil {
		return err
	}
	for _, r := range f.resources {
		if r == "" {
			return fmt.Errorf("%w: --resource: empty resource name", errUsage)
		}
	}
	for _, p := range f.redactFields {
		if p == "" {
			return fmt.Errorf("%w: --redact-field: empty path", errUsage)
		}
	}
	if err := recorder.CheckOptions(recorder.WithRedactFields(f.redactFields...)); err != nil {
		return fmt.Errorf("%w: --redact-field: %v", errUsage, err)
	}
	if _, err := labels.Parse(f.selector); err != nil {
		return fmt.Errorf("%w: --selector: %v", errUsage, err)
	}
	if _, err := fields.ParseSelector(f.fieldSelector); err != nil {
		return fmt.Errorf("%w: --field-selector: %v", errUsage, err)
	}
	return nil
}
