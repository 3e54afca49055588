package writediff

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// request is a client step made ready to send.
type request struct {
	obj       *unstructured.Unstructured // Create, Update
	patch     []byte                     // Patch, Apply
	patchType types.PatchType
	create    metav1.CreateOptions
	update    metav1.UpdateOptions
	patchOpts metav1.PatchOptions
	delete    metav1.DeleteOptions
}

// fill replaces a step's placeholders.
func fill(s, ns, staleRV string) string {
	return strings.NewReplacer("{ns}", ns, "{staleRV}", staleRV).Replace(s)
}

// step runs one step; stale holds each target's first resourceVersion.
func (r *runner) step(ctx context.Context, ns string, s Step, stale map[string]string, norm *normalizer) (Outcome, error) {
	key := s.Resource + "/" + s.Target
	before := r.stored(ctx, ns, s.Resource, s.Target)
	if before != nil {
		norm.noteRV(before.GetResourceVersion())
		if stale[key] == "" {
			stale[key] = before.GetResourceVersion()
		}
	}
	shownBefore := before // what the answer is held against
	if s.Subresource == "scale" {
		shownBefore = r.storedScale(ctx, ns, s.Resource, s.Target)
	}
	var (
		o   Outcome
		obj *unstructured.Unstructured
		err error
	)
	switch s.Via {
	case Kubectl:
		o, err = r.runKubectl(ctx, ns, s, stale[key])
	case Dynamic, Typed:
		var req request
		if req, err = prepare(s, ns, shownBefore, stale[key]); err != nil {
			return o, err
		}
		var callErr error
		if s.Via == Dynamic {
			obj, callErr = r.dynamicDo(ctx, ns, s, req)
		} else {
			obj, callErr = r.typedDo(ctx, ns, s, req)
		}
		o = outcomeOf(callErr)
		o.Code = r.codes.code(o.Code)
	default:
		return o, fmt.Errorf("unknown via %q", s.Via)
	}
	if err != nil {
		return o, err
	}
	o.Step = s.Name
	if obj != nil && stale[key] == "" && s.Target != "" {
		stale[key] = obj.GetResourceVersion()
	}
	after := r.stored(ctx, ns, s.Resource, s.Target)
	for _, x := range []*unstructured.Unstructured{obj, after} {
		if x != nil {
			norm.noteRV(x.GetResourceVersion())
		}
	}
	o.Object = observe(shownBefore, obj)
	if s.Target != "" {
		o.Stored = storedChange(before, after)
	}
	shown := obj
	if obj == nil && after != nil {
		o.StoredObject = observe(before, after)
		shown = after
	}
	if shown != nil && len(s.Show) > 0 {
		o.Shown = map[string]string{}
		for _, p := range s.Show {
			v, found, _ := unstructured.NestedFieldNoCopy(shown.Object, strings.Split(p, ".")...)
			b, _ := json.Marshal(v)
			if !found {
				b = []byte("absent")
			}
			o.Shown[p] = string(b)
		}
	}
	return o, nil
}

// prepare builds the request of a client step.
func prepare(s Step, ns string, before *unstructured.Unstructured, staleRV string) (request, error) {
	var req request
	var dry []string
	if s.DryRun {
		dry = []string{metav1.DryRunAll}
	}
	req.create = metav1.CreateOptions{DryRun: dry, FieldManager: s.Manager}
	req.update = metav1.UpdateOptions{DryRun: dry, FieldManager: s.Manager}
	req.patchOpts = metav1.PatchOptions{DryRun: dry, FieldManager: s.Manager}
	req.delete = metav1.DeleteOptions{DryRun: dry}
	if s.UID != "" {
		uid := types.UID(s.UID)
		req.delete.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	if s.TargetRV && before != nil {
		rv := before.GetResourceVersion()
		req.delete.Preconditions = &metav1.Preconditions{ResourceVersion: &rv}
	}
	if s.Propagation != "" {
		p := s.Propagation
		req.delete.PropagationPolicy = &p
	}
	body := fill(s.Body, ns, staleRV)
	switch s.Verb {
	case Create:
		obj, err := decode(body)
		if err != nil {
			return req, err
		}
		obj.SetNamespace(ns)
		req.obj = obj
	case Update:
		edit, err := decode(body)
		if err != nil {
			return req, err
		}
		base := map[string]any{"metadata": map[string]any{"name": s.Target, "namespace": ns}}
		if before != nil {
			base = before.DeepCopy().Object
		}
		obj := &unstructured.Unstructured{Object: mergePatch(base, edit.Object).(map[string]any)}
		switch s.RV {
		case RVStale:
			obj.SetResourceVersion(staleRV)
		case RVNone:
			obj.SetResourceVersion("")
		}
		req.obj = obj
	case Patch, Apply:
		req.patch, req.patchType = []byte(body), s.PatchType
		if s.Verb == Apply {
			req.patchType = types.ApplyPatchType
			force := s.Force
			req.patchOpts.Force = &force
		}
	case Get, Delete, DeleteCollection:
	default:
		return req, fmt.Errorf("unknown verb %q", s.Verb)
	}
	return req, nil
}

// mergePatch applies a JSON merge patch (RFC 7386) to doc.
func mergePatch(doc, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	d, ok := doc.(map[string]any)
	if !ok {
		d = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(d, k)
			continue
		}
		d[k] = mergePatch(d[k], v)
	}
	return d
}

// dynamicDo sends a request through the dynamic client.
func (r *runner) dynamicDo(ctx context.Context, ns string, s Step, req request) (*unstructured.Unstructured, error) {
	ri := r.dyn.Resource(resources[s.Resource]).Namespace(ns)
	var subs []string
	if s.Subresource != "" {
		subs = []string{s.Subresource}
	}
	switch s.Verb {
	case Create:
		return ri.Create(ctx, req.obj, req.create, subs...)
	case Get:
		return ri.Get(ctx, s.Target, metav1.GetOptions{}, subs...)
	case Update:
		return ri.Update(ctx, req.obj, req.update, subs...)
	case Patch, Apply:
		return ri.Patch(ctx, s.Target, req.patchType, req.patch, req.patchOpts, subs...)
	case DeleteCollection:
		return nil, ri.DeleteCollection(ctx, req.delete, listOptions(s))
	}
	return nil, ri.Delete(ctx, s.Target, req.delete, subs...)
}

// listOptions are a DeleteCollection step's selectors.
func listOptions(s Step) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: s.Selector, FieldSelector: s.FieldSelector}
}
