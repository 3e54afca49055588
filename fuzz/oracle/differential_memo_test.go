package oracle

import (
	"reflect"
	"sort"
	"testing"
)

// TestJSONDiffs checks the fields jsonDiffs finds: its paths (keys that
// need quoting, list indices, a side that lacks the field) and that equal
// values, of any JSON type, are no difference.
func TestJSONDiffs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want []fieldDiff
	}{
		{name: "jsonDiffs - equal values of every type - none - pass",
			a: `{"s":"x","n":1.5,"t":true,"z":null,"l":[1,{"k":"v"}],"m":{"a.b":"c"}}`,
			b: `{"m":{"a.b":"c"},"l":[1,{"k":"v"}],"z":null,"t":true,"n":1.5,"s":"x"}`},
		{name: "jsonDiffs - a quoted key, a list index, a missing field - fail",
			a: `{"metadata":{"annotations":{"example.com/at":"1"}},"spec":{"ports":[{"port":80},{"port":81}]},"gone":1}`,
			b: `{"metadata":{"annotations":{"example.com/at":"2"}},"spec":{"ports":[{"port":80},{"port":82}]},"new":"x"}`,
			want: []fieldDiff{
				{path: "gone", ref: "1", got: "absent"},
				{path: `metadata.annotations["example.com/at"]`, ref: `"1"`, got: `"2"`},
				{path: "new", ref: "absent", got: `"x"`},
				{path: "spec.ports[1].port", ref: "81", got: "82"}}},
		{name: "jsonDiffs - a value of another type - fail",
			a: `{"v":"1","w":[1]}`, b: `{"v":1,"w":[1,2]}`,
			want: []fieldDiff{{path: "v", ref: `"1"`, got: "1"}, {path: "w[1]", ref: "absent", got: "2"}}},
		{name: "jsonDiffs - JSON that does not decode - fail, the object",
			a: `{"v":`, b: `{"v":1}`, want: []fieldDiff{{path: "(object)", ref: `{"v":`, got: `{"v":1}`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for round := range 2 { // the second with a decoded from refValues
				got := jsonDiffs([]byte(tc.a), []byte(tc.b))
				sort.Slice(got, func(i, j int) bool { return got[i].path < got[j].path })
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("round %d: got %+v, want %+v", round, got, tc.want)
				}
			}
		})
	}
}

// TestJSONMemo checks jsonMemo: the same bytes decode once, their value
// shared; past maxBytes it starts afresh; a document that does not decode
// is an error and is not kept.
func TestJSONMemo(t *testing.T) {
	t.Parallel()
	t.Run("jsonMemo - the same bytes twice - one value, shared - pass", func(t *testing.T) {
		c := &jsonMemo{maxBytes: 1 << 10}
		a, err := c.decode([]byte(`{"k":{"v":1}}`))
		if err != nil {
			t.Fatalf("decode: got error %v, want none", err)
		}
		b, _ := c.decode([]byte(`{"k":{"v":1}}`))
		if reflect.ValueOf(a).Pointer() != reflect.ValueOf(b).Pointer() {
			t.Errorf("second decode: got another map, want the first one's")
		}
		if c.size != 13 || len(c.m) != 1 {
			t.Errorf("held: got %d documents of %d bytes, want 1 of 13", len(c.m), c.size)
		}
	})
	t.Run("jsonMemo - past maxBytes - starts afresh - pass", func(t *testing.T) {
		c := &jsonMemo{maxBytes: 20}
		for _, doc := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} { // 7 bytes each
			if _, err := c.decode([]byte(doc)); err != nil {
				t.Fatalf("decode %s: got error %v, want none", doc, err)
			}
		}
		if _, ok := c.m[`{"c":3}`]; !ok || len(c.m) != 1 || c.size != 7 {
			t.Errorf("held: got %d documents of %d bytes, want the last alone (7 bytes)", len(c.m), c.size)
		}
	})
	t.Run("jsonMemo - a document over maxBytes - decoded, not held, the others kept - pass", func(t *testing.T) {
		c := &jsonMemo{maxBytes: 10}
		for _, doc := range []string{`{"a":1}`, `{"big":"0123456789"}`} {
			if _, err := c.decode([]byte(doc)); err != nil {
				t.Fatalf("decode %s: got error %v, want none", doc, err)
			}
		}
		if _, ok := c.m[`{"a":1}`]; !ok || len(c.m) != 1 {
			t.Errorf("held: got %d documents, want the small one alone", len(c.m))
		}
	})
	t.Run("jsonMemo - JSON that does not decode - error, not kept - fail", func(t *testing.T) {
		c := &jsonMemo{maxBytes: 1 << 10}
		if _, err := c.decode([]byte(`{"a":`)); err == nil {
			t.Errorf("decode: got no error, want one")
		}
		if len(c.m) != 0 {
			t.Errorf("held: got %d documents, want none", len(c.m))
		}
	})
}
