package table

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// swaggerMetadataDescriptions are the descriptions of ObjectMeta's fields,
// which kube-apiserver's convertors give their Name and Created At (or Age)
// columns.
var swaggerMetadataDescriptions = metav1.ObjectMeta{}.SwaggerDoc()

// defaultTable is kube-apiserver's default Table convertor, for every
// resource with no printer of its own. Its columns are Name and Created
// At. Its cells are the object's name and its creationTimestamp in RFC
// 3339, UTC. It mirrors
// k8s.io/apiserver pkg/registry/rest/table.go (defaultTableConvertor), which
// leaves the rows of an empty list nil.
type defaultTable struct{}

// Default returns kube-apiserver's default Table convertor: columns Name
// and Created At.
func Default() Convertor { return defaultTable{} }

// Columns returns Name and Created At.
func (defaultTable) Columns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: swaggerMetadataDescriptions["name"]},
		{Name: "Created At", Type: "date", Description: swaggerMetadataDescriptions["creationTimestamp"]},
	}
}

// Cells returns the object's name and creationTimestamp.
func (defaultTable) Cells(m *metav1.ObjectMeta, _ []byte) []any {
	return []any{m.GetName(), m.GetCreationTimestamp().Time.UTC().Format(time.RFC3339)}
}

// EmptyRows is nil, as defaultTableConvertor leaves it.
func (defaultTable) EmptyRows() []metav1.TableRow { return nil }
