package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
)

// TestResourcesToAttach: server-everything's resources and templates are listed (what the
// composer's attach menu offers), and read: a static Markdown document as text, a template
// filled in, a binary resource described rather than pasted, a missing variable refused.
func TestResourcesToAttach(t *testing.T) {
	t.Parallel()
	w := newWatched(t, Options{}, map[string]config.MCPServer{"everything": everything(t)})
	w.until(t, "connected", connected("everything", 1))
	ctx := context.Background()
	l := w.Resources(ctx)
	var static, templates []ResourceInfo
	for _, r := range l.Resources {
		if r.Server != "everything" {
			t.Fatalf("resource of another server: %+v", r)
		}
		if r.Template {
			templates = append(templates, r)
		} else {
			static = append(static, r)
		}
	}
	if len(l.Errors) > 0 || len(static) != 7 || len(templates) != 2 || templates[0].URI != "demo://resource/dynamic/text/{resourceId}" ||
		len(templates[0].Variables) != 1 || templates[0].Variables[0] != "resourceId" {
		t.Fatalf("resources: %+v", l)
	}
	doc, err := w.ReadResource(ctx, "everything", "demo://resource/static/document/features.md")
	if err != nil || doc.MimeType != "text/markdown" || !strings.Contains(doc.Text, "#") || doc.Size != len(doc.Text) {
		t.Fatalf("features.md: %+v, %v", doc, err)
	}
	uri, err := Expand(templates[0].URI, map[string]string{"resourceId": "3"})
	if err != nil || uri != "demo://resource/dynamic/text/3" {
		t.Fatalf("expand: %q, %v", uri, err)
	}
	text, err := w.ReadResource(ctx, "everything", uri)
	if err != nil || !strings.Contains(text.Text, "3") || text.MimeType != "text/plain" {
		t.Fatalf("dynamic text: %+v, %v", text, err)
	}
	blob, err := w.ReadResource(ctx, "everything", "demo://resource/dynamic/blob/2")
	if err != nil || !strings.Contains(blob.Text, "[binary contents of demo://resource/dynamic/blob/2") || blob.Size == 0 {
		t.Fatalf("dynamic blob: %+v, %v", blob, err)
	}
	if _, err := Expand(templates[0].URI, nil); err == nil || !strings.Contains(err.Error(), "give resourceId a value") {
		t.Fatalf("a missing variable: %v", err)
	}
	if _, err := w.ReadResource(ctx, "nobody", "x://y"); err == nil {
		t.Fatal("a server not configured was read")
	}
}

func TestCutText(t *testing.T) {
	if got := cutText("héllo", 2); got != "h\n[cut: 1 of 6 bytes attached]" {
		t.Fatalf("%q", got)
	}
	if got := cutText("hello", 5); got != "hello" {
		t.Fatalf("%q", got)
	}
}
