package replayer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/lwreplay/lwreplay/history"
)

// filter selects the objects a request asks for: its namespace, label
// selector and field selector (metadata.name and metadata.namespace, the
// fields every resource supports).
type filter struct {
	namespace string
	labels    labels.Selector
	fields    fields.Selector
}

// newFilter parses a request's selectors; the error is the message of the
// 400 BadRequest kube-apiserver answers.
func newFilter(q history.RequestInfo) (filter, error) {
	f := filter{namespace: q.Namespace, labels: labels.Everything(), fields: fields.Everything()}
	var err error
	if q.LabelSelector != "" {
		if f.labels, err = labels.Parse(q.LabelSelector); err != nil {
			return f, fmt.Errorf("unable to parse requirement: %v", err)
		}
	}
	if q.FieldSelector != "" {
		if f.fields, err = fields.ParseSelector(q.FieldSelector); err != nil {
			return f, fmt.Errorf("invalid field selector: %v", err)
		}
		for _, r := range f.fields.Requirements() {
			if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
				return f, fmt.Errorf("field label not supported: %s", r.Field)
			}
		}
	}
	return f, nil
}

// match reports whether o is selected; a nil object never is.
func (f filter) match(o *history.Object) bool {
	if o == nil {
		return false
	}
	if f.namespace != "" && o.Namespace != f.namespace {
		return false
	}
	if !f.labels.Empty() && !f.labels.Matches(labels.Set(o.Labels)) {
		return false
	}
	if !f.fields.Empty() && !f.fields.Matches(fields.Set{"metadata.name": o.Name, "metadata.namespace": o.Namespace}) {
		return false
	}
	return true
}
