package table

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	metatable "k8s.io/apimachinery/pkg/api/meta/table"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/util/jsonpath"
)

// crdColumn is a printer column of a CustomResourceDefinition version
// (apiextensions.k8s.io/v1 CustomResourceColumnDefinition: the fields the
// Table needs).
type crdColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
	JSONPath    string `json:"jsonPath"`
}

// crdSpec is the part of a CustomResourceDefinition the Table needs.
type crdSpec struct {
	Spec struct {
		Versions []struct {
			Name                     string      `json:"name"`
			AdditionalPrinterColumns []crdColumn `json:"additionalPrinterColumns"`
		} `json:"versions"`
	} `json:"spec"`
}

// ForCRD returns the convertor of the custom resources of version that
// the CustomResourceDefinition crd (its JSON) defines. Like
// kube-apiserver's, it shows the printer columns for that version. A
// definition that does not parse, or that has no such version, gets the
// default convertor.
func ForCRD(crd []byte, version string) Convertor {
	var spec crdSpec
	if json.Unmarshal(crd, &spec) != nil {
		return Default()
	}
	for _, v := range spec.Spec.Versions {
		if v.Name == version {
			return newCRDTable(v.AdditionalPrinterColumns)
		}
	}
	return Default()
}

// crdTable is the Table convertor of a custom resource. It has a Name
// column, then one per printer column the CustomResourceDefinition
// declares for the version. When it declares none, there is Age, from
// metadata.creationTimestamp. Each cell is the value of the column's
// JSONPath. It mirrors k8s.io/apiextensions-apiserver
// pkg/registry/customresource/tableconvertor (New, ConvertToTable,
// cellForJSONValue). For the default columns it mirrors
// pkg/apiserver/customresource_handler.go (serveDefaultColumnsIfEmpty).
type crdTable struct {
	headers []metav1.TableColumnDefinition
	paths   []*jsonpath.JSONPath
}

// newCRDTable returns the convertor of columns. A column whose JSONPath
// does not parse ends the columns there, as kube-apiserver's New returns
// the convertor built so far with its error.
func newCRDTable(columns []crdColumn) *crdTable {
	if len(columns) == 0 {
		columns = []crdColumn{{Name: "Age", Type: "date", Description: swaggerMetadataDescriptions["creationTimestamp"], JSONPath: ".metadata.creationTimestamp"}}
	}
	c := &crdTable{headers: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: swaggerMetadataDescriptions["name"]},
	}}
	for _, col := range columns {
		path := jsonpath.New(col.Name)
		if err := path.Parse(fmt.Sprintf("{%s}", col.JSONPath)); err != nil {
			break
		}
		path.AllowMissingKeys(true)
		desc := fmt.Sprintf("Custom resource definition column (in JSONPath format): %s", col.JSONPath)
		if len(col.Description) > 0 {
			desc = col.Description
		}
		c.paths = append(c.paths, path)
		c.headers = append(c.headers, metav1.TableColumnDefinition{
			Name: col.Name, Type: col.Type, Format: col.Format, Description: desc, Priority: col.Priority,
		})
	}
	return c
}

// Columns returns a Name column and one per printer column.
func (c *crdTable) Columns() []metav1.TableColumnDefinition { return c.headers }

// EmptyRows is empty, not nil: MetaToTableRow makes the rows of a list.
func (c *crdTable) EmptyRows() []metav1.TableRow { return []metav1.TableRow{} }

// Cells returns the object's name and the value of each column's JSONPath.
func (c *crdTable) Cells(m *metav1.ObjectMeta, raw []byte) []any {
	cells := make([]any, 1, 1+len(c.paths))
	cells[0] = m.GetName()
	var content map[string]any
	if utiljson.Unmarshal(raw, &content) != nil { // numbers as int64 or float64, as unstructured objects hold them
		content = map[string]any{}
	}
	var buf bytes.Buffer
	custom := c.headers[1:]
	for i, path := range c.paths {
		results, err := path.FindResults(content)
		if err != nil || len(results) == 0 || len(results[0]) == 0 {
			cells = append(cells, nil)
			continue
		}
		// as kube-apiserver: a simple JSONPath has one result
		value := results[0][0].Interface()
		if custom[i].Type == "string" {
			if err := path.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err == nil {
				cells = append(cells, buf.String())
				buf.Reset()
			} else {
				cells = append(cells, nil)
			}
			continue
		}
		cells = append(cells, cellForJSONValue(custom[i].Type, value))
	}
	return cells
}

// cellForJSONValue converts a JSONPath result to a cell of the column's
// type, as kube-apiserver's does; nil when it is not of that type.
func cellForJSONValue(headerType string, value any) any {
	if value == nil {
		return nil
	}
	switch headerType {
	case "integer":
		switch typed := value.(type) {
		case int64:
			return typed
		case float64:
			return int64(typed)
		case json.Number:
			if i64, err := typed.Int64(); err == nil {
				return i64
			}
		}
	case "number":
		switch typed := value.(type) {
		case int64:
			return float64(typed)
		case float64:
			return typed
		case json.Number:
			if f, err := typed.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return b
		}
	case "string":
		if s, ok := value.(string); ok {
			return s
		}
	case "date":
		if typed, ok := value.(string); ok {
			var timestamp metav1.Time
			if err := timestamp.UnmarshalQueryParameter(typed); err != nil {
				return "<invalid>"
			}
			return metatable.ConvertToHumanReadableDateType(timestamp)
		}
	}
	return nil
}
