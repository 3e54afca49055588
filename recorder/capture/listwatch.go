package capture

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// WatchListMode says whether the informers open their initial state as a
// WatchList stream or with LIST.
type WatchListMode string

// WatchList modes.
const (
	// WatchListAuto follows client-go: WatchList when its WatchListClient
	// feature gate is on. That is the default; the environment variable
	// KUBE_FEATURE_WatchListClient=false turns it off. A page size turns
	// it off too, since pages are a LIST's.
	WatchListAuto WatchListMode = "auto"
	// WatchListOn turns the WatchListClient feature gate on for the whole
	// process. client-go reads KUBE_FEATURE_WatchListClient once, at the
	// first gate check. So the gate is set through client-go's feature
	// gates rather than the environment. The reflector still falls back
	// to LIST when the server refuses WatchList.
	WatchListOn WatchListMode = "on"
	// WatchListOff makes the informers LIST then WATCH, through a
	// ListerWatcher that reports it does not support WatchList semantics;
	// nothing process-wide changes.
	WatchListOff WatchListMode = "off"
)

// ParseWatchListMode reads "auto" (or ""), "on" or "off".
func ParseWatchListMode(s string) (WatchListMode, error) {
	switch m := WatchListMode(s); m {
	case "":
		return WatchListAuto, nil
	case WatchListAuto, WatchListOn, WatchListOff:
		return m, nil
	}
	return "", fmt.Errorf("%w: watchlist mode %q: want auto, on or off", ErrConfig, s)
}

// featureSetter is what client-go's default feature gates offer to set a
// gate at run time.
type featureSetter interface {
	Set(clientfeatures.Feature, bool) error
}

// enableWatchList turns client-go's WatchListClient gate on, process-wide.
func enableWatchList() error {
	gates := clientfeatures.FeatureGates()
	if gates.Enabled(clientfeatures.WatchListClient) {
		return nil
	}
	s, ok := gates.(featureSetter)
	if !ok {
		return fmt.Errorf("%w: the process's client-go feature gates cannot be set; unset KUBE_FEATURE_WatchListClient", ErrWatchList)
	}
	if err := s.Set(clientfeatures.WatchListClient, true); err != nil {
		return fmt.Errorf("%w: %v", ErrWatchList, err)
	}
	if !gates.Enabled(clientfeatures.WatchListClient) {
		return fmt.Errorf("%w: the WatchListClient gate stays off", ErrWatchList)
	}
	return nil
}

// listWatcher is a dynamic client's ListWatch that can opt out of
// WatchList semantics, as client-go's generated informers can.
type listWatcher struct {
	*cache.ListWatch
	noWatchList bool
}

// IsWatchListSemanticsUnSupported tells the reflector whether to skip
// WatchList (see k8s.io/client-go/util/watchlist).
func (l *listWatcher) IsWatchListSemanticsUnSupported() bool { return l.noWatchList }

// listOptions are what every request of one informer carries.
type listOptions struct {
	namespace     string
	labelSelector string
	fieldSelector string
	pageSize      int64
	noWatchList   bool
}

// newListWatcher returns the ListerWatcher of t's informer. With a page
// size, LIST asks for pages of that size. The reflector's first list is at
// resourceVersion "0", which kube-apiserver's watch cache answers in one
// page whatever the limit. So it becomes a consistent read
// (resourceVersion ""), as kubectl --chunk-size asks, and the pager
// follows continue tokens.
func newListWatcher(client dynamic.Interface, t Target, o listOptions) *listWatcher {
	ns := ""
	if t.Namespaced {
		ns = o.namespace
	}
	ri := client.Resource(t.GVR).Namespace(ns)
	tweak := func(opts *metav1.ListOptions) {
		if o.labelSelector != "" {
			opts.LabelSelector = o.labelSelector
		}
		if o.fieldSelector != "" {
			opts.FieldSelector = o.fieldSelector
		}
	}
	return &listWatcher{
		noWatchList: o.noWatchList,
		ListWatch: &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				tweak(&opts)
				if o.pageSize > 0 {
					if opts.Continue == "" && opts.ResourceVersion == "0" {
						opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
					}
					opts.Limit = o.pageSize
				}
				return ri.List(ctx, opts)
			},
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				tweak(&opts)
				return ri.Watch(ctx, opts)
			},
		},
	}
}
