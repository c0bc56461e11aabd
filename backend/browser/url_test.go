package browser

import "testing"

// TestCanonicalURL: URLs read as Chromium reads them (its canonical form, seen in the file
// gate's requests), so the tools judge the file or host that really opens.
func TestCanonicalURL(t *testing.T) {
	for _, c := range []struct{ in, want, path string }{
		{"file:///home/u/.ssh/id_rsa", "file:///home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa"},
		{`file:\\\home\u\.ssh\id_rsa`, "file:///home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa"},
		{`file:\\/home/u/x`, "file:///home/u/x", "/home/u/x"},
		{"FILE:/home/u/x", "file:///home/u/x", "/home/u/x"},
		{"file:home/u/x", "file:///home/u/x", "/home/u/x"},
		{"file://localhost/home/u/x", "file:///home/u/x", "/home/u/x"},
		{"file://LOCALHOST/home/u/x", "file:///home/u/x", "/home/u/x"},
		{"file:///home/u/%2e%2e/v/%73ecret", "file:///home/u/%2e%2e/v/%73ecret", "/home/v/secret"},
		{"file:////home/u/x", "file:////home/u/x", "/home/u/x"},
		{" \tfile:///ho\nme/x\r\n", "file:///home/x", "/home/x"},
		{`file:///a\b?c\d`, `file:///a/b?c\d`, "/a/b"},
		{"HTTP:127.0.0.1:8000/x", "http://127.0.0.1:8000/x", ""},
		{`http:\\LOCALHOST:1\x`, "http://localhost:1/x", ""},
		{"https:///example.com", "https://example.com", ""},
		{"about:blank", "about:blank", ""},
		{"view-source:file:///x", "view-source:file:///x", ""},
	} {
		if got := CanonicalURL(c.in); got != c.want {
			t.Errorf("CanonicalURL(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.path == "" {
			continue
		}
		if got, err := FilePath(c.in); err != nil || got != c.path {
			t.Errorf("FilePath(%q) = %q, %v, want %q", c.in, got, err, c.path)
		}
	}
	if _, err := FilePath("file://server/share/x"); err == nil {
		t.Error("a file URL on another machine has a local path")
	}
}
