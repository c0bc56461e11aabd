package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "Open with Tofu": the paper is imported at once, and the request waits until the page takes
// it (a window whose page has not loaded yet loses nothing); the page is told as it happens; a
// file that is not a PDF comes back with why, for the window to show, and nothing is added.
func TestOpenPaperWaitsForThePage(t *testing.T) {
	t.Parallel()
	f := newPaperFixture(t, t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "my paper.pdf"), testPaper(t, "multivae_joss"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.pdf"), []byte("not a PDF at all"), 0o644); err != nil {
		t.Fatal(err)
	}

	info, err := f.app.OpenPaper("my paper.pdf", dir)
	if err != nil || info.ID == "" || info.Pages != 5 {
		t.Fatalf("OpenPaper: %+v, %v", info, err)
	}
	if _, err := f.app.OpenPaper(filepath.Join(dir, "notes.pdf"), ""); err == nil {
		t.Fatal("a file that is not a PDF was imported")
	}
	nudges := 0
	for _, m := range f.rec.snapshot() {
		if d, ok := m.data.(map[string]any); ok && m.topic == TopicPapers && d["kind"] == "open" {
			nudges++
		}
	}
	if nudges != 2 {
		t.Fatalf("%d open nudges on %s, want 2", nudges, TopicPapers)
	}

	got := f.app.Papers.TakeOpens()
	if len(got) != 2 || got[0].ID != info.ID || got[0].Name != "my paper.pdf" || got[0].Error != "" {
		t.Fatalf("TakeOpens = %+v", got)
	}
	if got[1].ID != "" || got[1].Name != "notes.pdf" || !strings.Contains(got[1].Error, "not a PDF") {
		t.Fatalf("the failed open = %+v, want its name and why", got[1])
	}
	if again := f.app.Papers.TakeOpens(); len(again) != 0 {
		t.Fatalf("the requests were given twice: %+v", again)
	}
	if list, _ := f.app.Papers.List(); len(list) != 1 || list[0].ID != info.ID {
		t.Fatalf("library after the opens: %+v", list)
	}
}
