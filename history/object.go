package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Object is one recorded object: its identity and metadata, and its JSON as
// a list item carries it (without kind and apiVersion).
type Object struct {
	// Namespace and Name identify the object.
	Namespace, Name string
	// UID is metadata.uid.
	UID string
	// ResourceVersion is metadata.resourceVersion.
	ResourceVersion string
	// Labels is metadata.labels.
	Labels map[string]string
	// Annotations is metadata.annotations.
	Annotations map[string]string
	// Raw is the object's JSON without kind and apiVersion.
	Raw []byte

	key string // Key, computed once by ParseObject
}

// Key returns "namespace/name", or "name" for a cluster-scoped object, as
// client-go's MetaNamespaceKeyFunc does.
func (o *Object) Key() string {
	if o.key != "" {
		return o.key
	}
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// WithKind returns the object's JSON with kind and apiVersion first, as a
// watch event carries it.
func (o *Object) WithKind(kind, apiVersion string) []byte {
	return o.AppendWithKind(make([]byte, 0, len(o.Raw)+len(kind)+len(apiVersion)+32), kind, apiVersion)
}

// AppendWithKind appends the object's JSON with kind and apiVersion first
// (as WithKind returns it) to dst and returns the extended slice.
func (o *Object) AppendWithKind(dst []byte, kind, apiVersion string) []byte {
	dst = append(dst, `{"kind":`...)
	dst = appendJSONString(dst, kind)
	dst = append(dst, `,"apiVersion":`...)
	dst = appendJSONString(dst, apiVersion)
	if body := bytes.TrimSpace(o.Raw[1:]); len(body) > 0 && body[0] != '}' {
		dst = append(dst, ',')
	}
	return append(dst, o.Raw[1:]...)
}

// appendJSONString appends s as json.Marshal encodes it. A string of
// printable ASCII that needs no escape (a kind, an apiVersion) is quoted as
// it is, without an allocation.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s) // a string always marshals
			return append(dst, enc...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

type objectMeta struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name            string            `json:"name"`
		Namespace       string            `json:"namespace"`
		UID             string            `json:"uid"`
		ResourceVersion string            `json:"resourceVersion"`
		Labels          map[string]string `json:"labels"`
		Annotations     map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// ParseObject reads an object's JSON (with or without kind and apiVersion)
// and returns it with its kind and apiVersion.
func ParseObject(raw []byte) (o *Object, kind, apiVersion string, err error) {
	var m objectMeta
	if err := decodeJSON(raw, &m); err != nil {
		return nil, "", "", fmt.Errorf("object: %v", err)
	}
	o, err = objectFrom(&m, raw, false)
	if err != nil {
		return nil, "", "", err
	}
	return o, m.Kind, m.APIVersion, nil
}

// objectFrom returns the Object of raw, an object's JSON whose kind,
// apiVersion and metadata m holds. With inPlace, Raw may be cut out of raw
// (overwriting a byte of it) rather than copied.
func objectFrom(m *objectMeta, raw []byte, inPlace bool) (*Object, error) {
	if m.Metadata.Name == "" {
		return nil, errors.New("object has no metadata.name")
	}
	var stripped []byte
	if m.Kind != "" || m.APIVersion != "" {
		var err error
		if stripped = stripLeadingTypeMeta(raw, m.Kind, m.APIVersion, inPlace); stripped == nil {
			if stripped, err = stripTypeMeta(raw); err != nil {
				return nil, fmt.Errorf("object: %v", err)
			}
		}
	} else {
		stripped = bytes.TrimSpace(append([]byte(nil), raw...))
	}
	o := &Object{
		Namespace:       m.Metadata.Namespace,
		Name:            m.Metadata.Name,
		UID:             m.Metadata.UID,
		ResourceVersion: m.Metadata.ResourceVersion,
		Labels:          m.Metadata.Labels,
		Annotations:     m.Metadata.Annotations,
		Raw:             stripped,
	}
	o.key = o.Key()
	return o, nil
}

// stripLeadingTypeMeta returns raw without its kind and apiVersion when
// they are its first two members. kube-apiserver writes them so
// (`{"kind":"Pod","apiVersion":"v1",...`). The result is in a new slice.
// Or, with inPlace, it is cut out of raw, whose byte before the other
// members becomes the opening brace. It is nil when raw is laid out
// otherwise.
func stripLeadingTypeMeta(raw []byte, kind, apiVersion string, inPlace bool) []byte {
	prefix := make([]byte, 0, 64)
	prefix = append(prefix, `{"kind":`...)
	prefix = appendJSONString(prefix, kind)
	prefix = append(prefix, `,"apiVersion":`...)
	prefix = appendJSONString(prefix, apiVersion)
	rest, ok := bytes.CutPrefix(raw, prefix)
	if !ok || len(rest) == 0 {
		return nil
	}
	rest = bytes.TrimRight(rest, " \t\r\n")
	switch {
	case rest[0] == '}':
		return []byte("{}")
	case rest[0] != ',':
		return nil
	case inPlace:
		rest[0] = '{'
		return rest[:len(rest):len(rest)]
	}
	out := make([]byte, 0, len(rest))
	out = append(out, '{')
	return append(out, rest[1:]...)
}

// stripTypeMeta removes the top-level kind and apiVersion members of a JSON
// object, keeping the other members' bytes and order.
func stripTypeMeta(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out bytes.Buffer
	out.Grow(len(raw))
	out.WriteByte('{')
	n := 0
	for dec.More() {
		start := dec.InputOffset()
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if t == "kind" || t == "apiVersion" {
			continue
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(bytes.TrimLeft(raw[start:dec.InputOffset()], " \t\r\n,"))
		n++
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// WithUID returns a copy of o whose metadata.uid (in its fields and its
// JSON) is uid.
func WithUID(o *Object, uid string) (*Object, error) {
	c, err := withMetadata(o, "uid", uid)
	if err != nil {
		return nil, err
	}
	c.UID = uid
	return c, nil
}

// withMetadata returns a copy of o whose JSON has metadata.<field> = value.
func withMetadata(o *Object, field, value string) (*Object, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(o.Raw, &fields); err != nil {
		return nil, fmt.Errorf("object %s: %v", o.Key(), err)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(fields["metadata"], &meta); err != nil {
		return nil, fmt.Errorf("object %s: metadata: %v", o.Key(), err)
	}
	if meta == nil { // "metadata": null
		meta = map[string]json.RawMessage{}
	}
	meta[field], _ = json.Marshal(value) // a string always marshals
	var err error
	if fields["metadata"], err = json.Marshal(meta); err != nil {
		return nil, fmt.Errorf("object %s: %v", o.Key(), err)
	}
	c := *o
	if c.Raw, err = json.Marshal(fields); err != nil {
		return nil, fmt.Errorf("object %s: %v", o.Key(), err)
	}
	return &c, nil
}

// ObjectOf returns the Object of obj, an object held as decoded JSON (as
// unstructured.Unstructured holds it), with its kind and apiVersion. It
// equals ParseObject of obj's json.Marshal encoding, with no decode: a
// write's stored object becomes a history Object at the cost of one
// encode. Raw is encoding/json's encoding of obj without kind and
// apiVersion (map keys sorted).
func ObjectOf(obj map[string]any) (o *Object, kind, apiVersion string, err error) {
	if obj == nil {
		return nil, "", "", errors.New("object: null")
	}
	var m objectMeta
	rest := make(map[string]any, len(obj))
	for k, v := range obj {
		switch k {
		case "kind":
			if m.Kind, err = stringField(k, v); err != nil {
				return nil, "", "", err
			}
		case "apiVersion":
			if m.APIVersion, err = stringField(k, v); err != nil {
				return nil, "", "", err
			}
		default:
			rest[k] = v
		}
	}
	if err := metaOf(&m, obj["metadata"]); err != nil {
		return nil, "", "", err
	}
	if m.Metadata.Name == "" {
		return nil, "", "", errors.New("object has no metadata.name")
	}
	raw, err := json.Marshal(rest)
	if err != nil {
		return nil, "", "", fmt.Errorf("object: %v", err)
	}
	o = &Object{
		Namespace:       m.Metadata.Namespace,
		Name:            m.Metadata.Name,
		UID:             m.Metadata.UID,
		ResourceVersion: m.Metadata.ResourceVersion,
		Labels:          m.Metadata.Labels,
		Annotations:     m.Metadata.Annotations,
		Raw:             raw,
	}
	o.key = o.Key()
	return o, m.Kind, m.APIVersion, nil
}

// metaOf fills m.Metadata from v, an object's metadata held as decoded
// JSON. A field of the wrong type is an error, as ParseObject's decode
// makes it.
func metaOf(m *objectMeta, v any) error {
	if v == nil {
		return nil
	}
	md, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("object: metadata is %T, want an object", v)
	}
	var err error
	for name, dst := range map[string]*string{
		"name": &m.Metadata.Name, "namespace": &m.Metadata.Namespace,
		"uid": &m.Metadata.UID, "resourceVersion": &m.Metadata.ResourceVersion,
	} {
		if *dst, err = stringField("metadata."+name, md[name]); err != nil {
			return err
		}
	}
	if m.Metadata.Labels, err = stringMap("metadata.labels", md["labels"]); err != nil {
		return err
	}
	m.Metadata.Annotations, err = stringMap("metadata.annotations", md["annotations"])
	return err
}

// stringField is v, the value of field, as a string ("" for null).
func stringField(field string, v any) (string, error) {
	switch s := v.(type) {
	case nil:
		return "", nil
	case string:
		return s, nil
	}
	return "", fmt.Errorf("object: %s is %T, want a string", field, v)
}

// stringMap is v, the value of field, as a map of strings (nil for null).
func stringMap(field string, v any) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("object: %s is %T, want an object", field, v)
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("object: %s[%q] is %T, want a string", field, k, e)
		}
		out[k] = s
	}
	return out, nil
}
