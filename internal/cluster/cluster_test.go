package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func TestCluster(t *testing.T) {
	start := time.Now()
	c := StartT(t)
	t.Logf("start time: %v", time.Since(start).Round(time.Millisecond))
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := c.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	fromKubeconfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	badToken := c.RestConfig()
	badToken.BearerToken = "not-the-token"

	ctx := context.Background()
	tests := []struct {
		name    string
		cfg     *rest.Config
		cm      string
		wantErr func(error) bool // nil: the create and list succeed
	}{
		{name: "cluster - create and list a configmap with RestConfig - pass", cfg: c.RestConfig(), cm: "one"},
		{name: "cluster - create and list a configmap with the kubeconfig - pass", cfg: fromKubeconfig, cm: "two"},
		{name: "cluster - create with a wrong token - fail", cfg: badToken, cm: "three", wantErr: apierrors.IsUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := kubernetes.NewForConfig(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: tt.cm}, Data: map[string]string{"k": "v"}}
			_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("create: got error %v, want the expected kind", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			list, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatalf("list: got error %v, want none", err)
			}
			var got []string
			for _, item := range list.Items {
				got = append(got, item.Name)
				if item.Name == tt.cm && item.Data["k"] != "v" {
					t.Errorf("configmap %s data: got %v, want k=v", tt.cm, item.Data)
				}
			}
			if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+tt.cm+" ") {
				t.Errorf("list: got %v, want it to hold %s", got, tt.cm)
			}
		})
	}

	t.Run("cluster - stop - pass", func(t *testing.T) {
		if err := c.Stop(); err != nil {
			t.Fatalf("stop: got error %v, want none", err)
		}
		if !c.Exited() {
			t.Errorf("processes after stop: got running, want reaped")
		}
		if _, err := os.Stat(c.dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("temporary directory after stop: got %v, want it gone", err)
		}
		for _, url := range []string{c.URL, c.EtcdURL} {
			addr := url[strings.Index(url, "//")+2:]
			if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				conn.Close()
				t.Errorf("dial %s after stop: got a connection, want refused", addr)
			}
		}
	})
}

func TestStartFailure(t *testing.T) {
	SkipShort(t)
	tests := []struct {
		name    string
		opts    []Option
		wantLog string
	}{
		{name: "start - unknown kube-apiserver flag - fail", opts: []Option{WithExtraFlags("--no-such-flag")}, wantLog: "no-such-flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Start(context.Background(), tt.opts...)
			Skip(t, err)
			if err == nil {
				c.Stop()
				t.Fatal("start: got no error, want one")
			}
			if !errors.Is(err, ErrStart) {
				t.Errorf("start: got %v, want ErrStart", err)
			}
			for _, want := range []string{"last lines of etcd log", "last lines of kube-apiserver log", tt.wantLog} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("start error: got %q, want it to contain %q", err, want)
				}
			}
		})
	}
}

func TestBinariesIn(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		want    binaries
		wantErr error
	}{
		{
			name:  "binaries - versioned names - pass",
			files: []string{"kube-apiserver-" + KubeVersion, "etcd-" + EtcdVersion, "etcd"},
			want:  binaries{apiserver: "kube-apiserver-" + KubeVersion, etcd: "etcd-" + EtcdVersion},
		},
		{
			name:  "binaries - plain names - pass",
			files: []string{"kube-apiserver", "etcd"},
			want:  binaries{apiserver: "kube-apiserver", etcd: "etcd"},
		},
		{
			name:  "binaries - with kube-controller-manager - pass",
			files: []string{"kube-apiserver", "etcd", "kube-controller-manager-" + KubeVersion},
			want:  binaries{apiserver: "kube-apiserver", etcd: "etcd", controllerManager: "kube-controller-manager-" + KubeVersion},
		},
		{name: "binaries - etcd missing - fail", files: []string{"kube-apiserver"}, wantErr: ErrBinaries},
		{name: "binaries - empty directory - fail", wantErr: ErrBinaries},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv(BinEnv, dir)
			got, err := findBinaries(context.Background())
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			got.apiserver, got.etcd = filepath.Base(got.apiserver), filepath.Base(got.etcd)
			if got.controllerManager != "" {
				got.controllerManager = filepath.Base(got.controllerManager)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// skipRecorder is a testing.TB that records Skip and Skipf instead of
// skipping.
type skipRecorder struct {
	testing.TB
	skipped string
}

func (r *skipRecorder) Helper() {}

func (r *skipRecorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }

func (r *skipRecorder) Skip(args ...any) { r.skipped = fmt.Sprint(args...) }

func TestSkip(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantSkip bool
	}{
		{name: "skip - build failed - pass", err: fmt.Errorf("%w: go: no network", ErrBuild), wantSkip: true},
		{name: "skip - start failed - pass", err: fmt.Errorf("%w: etcd exited", ErrStart)},
		{name: "skip - binary missing - pass", err: fmt.Errorf("%w: etcd", ErrBinaries)},
		{name: "skip - no error - pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &skipRecorder{TB: t}
			Skip(r, tt.err)
			if got := r.skipped != ""; got != tt.wantSkip {
				t.Fatalf("skipped: got %v (%q), want %v", got, r.skipped, tt.wantSkip)
			}
			if tt.wantSkip && !strings.HasPrefix(r.skipped, "SKIPPED: cannot build/start kube-apiserver") {
				t.Errorf("skip message: got %q, want the loud prefix", r.skipped)
			}
		})
	}
}

func TestSkipShort(t *testing.T) {
	tests := []struct {
		name     string
		short    bool
		wantSkip string
	}{
		{name: "skip short - -short set - skips quietly - pass", short: true, wantSkip: shortSkip},
		{name: "skip short - full tier - runs - pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &skipRecorder{TB: t}
			skipShort(r, tt.short)
			if r.skipped != tt.wantSkip {
				t.Fatalf("skip message: got %q, want %q", r.skipped, tt.wantSkip)
			}
			if strings.Contains(r.skipped, "SKIPPED") {
				t.Errorf("skip message: got %q, want no loud SKIPPED (the short tier skips on purpose)", r.skipped)
			}
		})
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name, data string
		n          int
		want       string
	}{
		{name: "tail - more lines than asked - pass", data: "a\nb\nc\n", n: 2, want: "b\nc"},
		{name: "tail - fewer lines than asked - pass", data: "a\nb\n", n: 5, want: "a\nb"},
		{name: "tail - no trailing newline - pass", data: "a\nb\nc", n: 1, want: "c"},
		{name: "tail - empty - pass", data: "", n: 3, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tail([]byte(tt.data), tt.n); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
