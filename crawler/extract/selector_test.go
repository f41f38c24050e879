package extract

import "testing"

func TestSplitSelector(t *testing.T) {
	tests := []struct{ in, css, attr string }{
		{"h1.title", "h1.title", ""},
		{"meta[name=pubdate]@content", "meta[name=pubdate]", "content"},
		{`a[href^="mailto:a@b"]`, `a[href^="mailto:a@b"]`, ""},
		{`a[href^="mailto:a@b"] @ data-x`, `a[href^="mailto:a@b"]`, "data-x"},
	}
	for _, tt := range tests {
		css, attr := SplitSelector(tt.in)
		if css != tt.css || attr != tt.attr {
			t.Errorf("SplitSelector(%q) = %q, %q; want %q, %q", tt.in, css, attr, tt.css, tt.attr)
		}
	}
}
