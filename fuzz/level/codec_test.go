package level

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestMemoCodec(t *testing.T) {
	t.Parallel()
	list := []byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[` +
		`{"metadata":{"name":"b","namespace":"ns","resourceVersion":"8"},"data":{"k":"v"}}]}`)
	frame := []byte(`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7"}}}`)
	object := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7"},"data":{"k":"v"}}`)
	status := []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}`)
	garbled := []byte(`{"type":"ADDED","object":{"kind":"Conf`)
	tests := []struct {
		name     string
		data     []byte
		defaults *schema.GroupVersionKind
		into     func() runtime.Object // nil: into nothing
		wantKept int                   // decodes the memo keeps after decoding twice
		wantErr  bool
	}{
		{name: "memo codec - LIST body into fresh lists - kept once, into filled - pass", data: list,
			into: func() runtime.Object { return &corev1.ConfigMapList{} }, wantKept: 1},
		{name: "memo codec - watch frame envelope into fresh events - kept once, into filled - pass", data: frame,
			into: func() runtime.Object { return &metav1.WatchEvent{} }, wantKept: 1},
		{name: "memo codec - event object into nothing - kept once, a copy each time - pass", data: object, wantKept: 1},
		{name: "memo codec - Status with defaults, as an error answer is read - not kept - pass", data: status,
			defaults: &schema.GroupVersionKind{Version: "v1"}, wantKept: 0},
		{name: "memo codec - into an object already filled - not kept - pass", data: object,
			into: func() runtime.Object {
				return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x", ResourceVersion: "1"}}
			}, wantKept: 0},
		{name: "memo codec - garbled frame - the serializer's error, kept - fail", data: garbled,
			into: func() runtime.Object { return &metav1.WatchEvent{} }, wantKept: 1, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := NewCache()
			ns := newMemoSerializer(d)
			info, ok := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), runtime.ContentTypeJSON)
			if !ok {
				t.Fatalf("JSON serializer: got none, want one")
			}
			memo, ok := info.Serializer.(memoCodec)
			if !ok {
				t.Fatalf("JSON serializer: got %T, want memoCodec", info.Serializer)
			}
			into := func() runtime.Object {
				if tc.into == nil {
					return nil
				}
				return tc.into()
			}
			wantInto := into()
			want, _, wantErr := memo.Serializer.Decode(tc.data, tc.defaults, wantInto)
			var got [2]runtime.Object
			for i := range got {
				in := into()
				obj, _, err := memo.Decode(tc.data, tc.defaults, in)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || (err != nil) != tc.wantErr {
					t.Fatalf("decode %d: got error %v, want %v as the serializer's", i+1, err, wantErr)
				}
				if in != nil && wantInto == want && obj != in {
					t.Errorf("decode %d: got %p, want into itself %p, as the serializer", i+1, obj, in)
				}
				if !reflect.DeepEqual(obj, want) {
					t.Errorf("decode %d: got %#v, want %#v as the serializer's", i+1, obj, want)
				}
				got[i] = obj
			}
			if got[0] != nil && got[0] == got[1] {
				t.Errorf("decodes: got the same object %p twice, want a copy each", got[0])
			}
			if n := d.CodecEntries(); n != tc.wantKept {
				t.Errorf("kept decodes: got %d, want %d", n, tc.wantKept)
			}
		})
	}
}
