package writediff

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Transcript is what a server answered to a run of sequences, normalized.
type Transcript struct {
	// Setup is the server's answer when creating the widget CRD failed;
	// nil when it is established.
	Setup *Outcome `json:"setup,omitempty"`
	// Sequences are the sequences' transcripts, in run order.
	Sequences []SequenceTranscript `json:"sequences"`
}

// SequenceTranscript is one sequence's outcomes and watch events.
type SequenceTranscript struct {
	// Name is the sequence's name.
	Name string `json:"name"`
	// Steps are the outcomes: first the namespace's creation
	// ("create namespace"), then one per step.
	Steps []Outcome `json:"steps"`
	// Events are the watch's events, "TYPE name", ending with the
	// sentinel zz-end's ADDED; empty when the watch did not open.
	Events []string `json:"events,omitempty"`
	// EventRVs tells the events' resourceVersions: "increasing", or
	// where they are not.
	EventRVs string `json:"eventRVs,omitempty"`
	// Watch is the watch's failure, when it did not open or did not end
	// with the sentinel.
	Watch string `json:"watch,omitempty"`
}

// Outcome is what one step was answered, normalized.
type Outcome struct {
	// Step is the step's name.
	Step string `json:"step"`
	// Code is the HTTP status code (client steps).
	Code int `json:"code,omitempty"`
	// Reason is the Status reason of an error answer.
	Reason string `json:"reason,omitempty"`
	// Message is the error's message, or kubectl's output, normalized.
	Message string `json:"message,omitempty"`
	// Causes are the Status details' causes, "type field: message".
	Causes []string `json:"causes,omitempty"`
	// Exit is kubectl's exit code (Kubectl steps).
	Exit *int `json:"exit,omitempty"`
	// Object is what the answered object tells, beside the stored one
	// before the step; nil when no object was answered.
	Object *Meta `json:"object,omitempty"`
	// Stored tells the stored Target after the step beside before:
	// "absent", "created", "unchanged", "changed", "deleted".
	Stored string `json:"stored,omitempty"`
	// StoredObject is what the stored Target tells after the step, beside
	// before, for steps that answer no object (Kubectl, Delete).
	StoredObject *Meta `json:"storedObject,omitempty"`
	// Shown holds the values of the step's Show paths, compact JSON.
	Shown map[string]string `json:"shown,omitempty"`
}

// Meta is the metadata rules an object shows beside an earlier version of
// it (none when it is new).
type Meta struct {
	// Name is the object's name, normalized.
	Name string `json:"name"`
	// UID is "set" (new object), "kept", "changed" or "missing".
	UID string `json:"uid"`
	// Generation is metadata.generation.
	Generation int64 `json:"generation"`
	// RV is "set" (new object), "same", "greater", "less", "missing" or
	// "opaque" (not an integer).
	RV string `json:"rv"`
	// Created is creationTimestamp: "set", "kept", "changed", "missing".
	Created string `json:"created"`
	// Deleting reports a deletionTimestamp.
	Deleting bool `json:"deleting,omitempty"`
	// Finalizers are metadata.finalizers.
	Finalizers []string `json:"finalizers,omitempty"`
	// Managers are managedFields, "manager operation [subresource]".
	Managers []string `json:"managers,omitempty"`
	// Fields tells spec, status and data: "added", "same", "changed",
	// "removed".
	Fields map[string]string `json:"fields,omitempty"`
}

// outcomeOf is the outcome of a client call's error (or 200 for none).
func outcomeOf(err error) Outcome {
	if err == nil {
		return Outcome{Code: 200}
	}
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return Outcome{Code: -1, Message: err.Error()}
	}
	st := se.Status()
	o := Outcome{Code: int(st.Code), Reason: string(st.Reason), Message: st.Message}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			o.Causes = append(o.Causes, strings.TrimSpace(fmt.Sprintf("%s %s: %s", c.Type, c.Field, c.Message)))
		}
	}
	return o
}

// observe tells what obj shows beside before (nil: none).
func observe(before, obj *unstructured.Unstructured) *Meta {
	if obj == nil {
		return nil
	}
	m := &Meta{Name: obj.GetName(), Generation: obj.GetGeneration(), Deleting: obj.GetDeletionTimestamp() != nil, Finalizers: obj.GetFinalizers(), Fields: map[string]string{}}
	uid, rv, created := string(obj.GetUID()), obj.GetResourceVersion(), obj.GetCreationTimestamp().String()
	m.UID, m.RV, m.Created = "set", "set", "set"
	if before != nil {
		m.UID = compareString(string(before.GetUID()), uid)
		m.Created = compareString(before.GetCreationTimestamp().String(), created)
		m.RV = compareRV(before.GetResourceVersion(), rv)
	}
	if uid == "" {
		m.UID = "missing"
	}
	if rv == "" {
		m.RV = "missing"
	}
	if ts := obj.GetCreationTimestamp(); ts.IsZero() {
		m.Created = "missing"
	}
	for _, f := range obj.GetManagedFields() {
		s := strings.TrimSpace(f.Manager + " " + string(f.Operation) + " " + f.Subresource)
		m.Managers = append(m.Managers, s)
	}
	sort.Strings(m.Managers)
	for _, k := range []string{"spec", "status", "data"} {
		now, inNow := obj.Object[k]
		var was any
		inBefore := false
		if before != nil {
			was, inBefore = before.Object[k]
		}
		switch {
		case inNow && !inBefore:
			m.Fields[k] = "added"
		case !inNow && inBefore:
			m.Fields[k] = "removed"
		case inNow && jsonEqual(was, now):
			m.Fields[k] = "same"
		case inNow:
			m.Fields[k] = "changed"
		}
	}
	if len(m.Fields) == 0 {
		m.Fields = nil
	}
	return m
}

// compareString tells b beside a: "kept" or "changed".
func compareString(a, b string) string {
	if a == b {
		return "kept"
	}
	return "changed"
}

// compareRV tells resourceVersion b beside a, by integer value.
func compareRV(a, b string) string {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA != nil || errB != nil:
		if a == b {
			return "same"
		}
		return "opaque"
	case y > x:
		return "greater"
	case y < x:
		return "less"
	}
	return "same"
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// WriteTranscript writes tr to path as indented JSON.
func WriteTranscript(path string, tr Transcript) error {
	b, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return fmt.Errorf("encode transcript: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	return nil
}

// ReadTranscript reads a transcript WriteTranscript wrote.
func ReadTranscript(path string) (Transcript, error) {
	var tr Transcript
	b, err := os.ReadFile(path)
	if err != nil {
		return tr, fmt.Errorf("read transcript: %w", err)
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		return tr, fmt.Errorf("parse transcript %s: %w", path, err)
	}
	return tr, nil
}

// FirstCode returns the code of the transcript's first answer: the CRD's
// creation when it failed, else the first sequence's first step. It
// returns 0 when there is none.
func (tr Transcript) FirstCode() int {
	if tr.Setup != nil {
		return tr.Setup.Code
	}
	if len(tr.Sequences) == 0 || len(tr.Sequences[0].Steps) == 0 {
		return 0
	}
	return tr.Sequences[0].Steps[0].Code
}
