package timelinetest

import "testing"

func TestExternalRefs(t *testing.T) {
	tests := []struct {
		name string
		html string
		want int
	}{
		{name: "refs - inline page - pass", html: `<a href="#x">x</a><script>document.createElementNS("http://www.w3.org/2000/svg","svg")</script>`, want: 0},
		{name: "refs - script src - fail", html: `<script src="x.js"></script>`, want: 1},
		{name: "refs - stylesheet href - fail", html: `<link rel="stylesheet" href="https://cdn/x.css">`, want: 2},
		{name: "refs - css font url - fail", html: "<style>\n@font-face{src:url(f.woff)}\n</style>", want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExternalRefs(tc.html); len(got) != tc.want {
				t.Errorf("ExternalRefs: got %q, want %d", got, tc.want)
			}
		})
	}
}
