package web

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// A page is parsed up to maxElements elements: a 5 MB page of 1,300,000 links took 12 s of
// CPU and 1.2 GB to extract, and the five one web_fetch call may read at once were a fatal
// out-of-memory. The page is cut before the element past the bound, and says so.
func TestPageElementsAreBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("<html><body><p>First words of the page.</p>")
	for range maxElements {
		b.WriteString("<br>") // cheap to extract: the test is of the bound
	}
	b.WriteString("<p>Words past the bound.</p></body></html>")
	base, _ := url.Parse("https://example.com/page")
	var p Page
	if err := extractHTML(context.Background(), []byte(b.String()), base, &p); err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || p.Bytes <= 0 || p.Bytes >= int64(b.Len()) || !strings.Contains(p.Text, "First words") || strings.Contains(p.Text, "past the bound") {
		t.Fatalf("truncated %v at %d of %d bytes; text %.80q…", p.Truncated, p.Bytes, b.Len(), p.Text)
	}
	// A page within the bound is read whole.
	p = Page{}
	if err := extractHTML(context.Background(), []byte("<html><body><p>Whole page.</p></body></html>"), base, &p); err != nil || p.Truncated {
		t.Fatalf("a small page: %v, truncated %v", err, p.Truncated)
	}
}
