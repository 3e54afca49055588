package engine

import (
	"bytes"
	"testing"
)

func TestParseCorpusFile(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    []byte
		wantErr bool
	}{
		{name: "corpus file - one []byte - its bytes - pass", raw: "go test fuzz v1\n[]byte(\"\\x00\\x01\\x86\")\n", want: []byte{0, 1, 0x86}},
		{name: "corpus file - not go test's - fail", raw: "hello\n", wantErr: true},
		{name: "corpus file - a string value - fail", raw: "go test fuzz v1\nstring(\"a\")\n", wantErr: true},
		{name: "corpus file - two values - fail", raw: "go test fuzz v1\n[]byte(\"a\")\n[]byte(\"b\")\n", wantErr: true},
		{name: "corpus file - bad quoting - fail", raw: "go test fuzz v1\n[]byte(\"\\q\")\n", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCorpusFile([]byte(tc.raw))
			if (err != nil) != tc.wantErr || !bytes.Equal(got, tc.want) {
				t.Errorf("ParseCorpusFile: got %q, %v, want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
