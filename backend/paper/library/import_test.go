package library

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/arxiv"
	"github.com/tofu-research/tofu/backend/store"
)

// An import is extracted once and stored whole; the same file again is the same paper;
// reopening reads the stored structure; delete takes everything.
func TestImportOpenDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	info := e.importFile(t, joss)
	if info.Pages != 5 || info.Chunks == 0 || info.Words == 0 || info.Title == "" {
		t.Fatalf("imported %+v", info)
	}
	if again := e.importFile(t, joss); again.ID != info.ID {
		t.Fatalf("the same file got a second id %s", again.ID)
	}
	if list, err := e.lib.List(); err != nil || len(list) != 1 {
		t.Fatalf("library: %v %+v", err, list)
	}
	view, err := e.lib.Open(info.ID)
	if err != nil || len(view.Chunks) != info.Chunks || view.Info.Opened.IsZero() || view.PDFURL != "/api/paper/"+info.ID+".pdf" {
		t.Fatalf("open: %v %+v", err, view.Info)
	}
	pdf, _ := os.ReadFile(joss)
	if b, err := e.store.BlobBytes(PDFKey(info.ID)); err != nil || !bytes.Equal(b, pdf) {
		t.Fatalf("stored PDF: %v, %d bytes", err, len(b))
	}
	qa, _ := e.lib.Session(info.ID, store.PurposeQA)
	if err := e.lib.Delete(info.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := e.lib.List(); len(list) != 0 {
		t.Fatal("paper still listed")
	}
	if _, err := e.store.Session(qa); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Q&A session survived: %v", err)
	}
	if _, err := e.store.Blob(PDFKey(info.ID)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("PDF survived: %v", err)
	}
}

// Bad files give the extractor's typed error with a kind and a hint, and store nothing.
func TestImportBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	good := e.importFile(t, joss)
	pdf, _ := os.ReadFile(joss)
	blank := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	cases := []struct {
		name string
		data []byte
		kind error
		want string
	}{
		{"notes.pdf", []byte("this is not a PDF at all"), paper.ErrCorrupt, "corrupt"},
		{"empty.pdf", nil, paper.ErrCorrupt, "corrupt"},
		{"truncated.pdf", pdf[:5000], paper.ErrCorrupt, "corrupt"},
		{"scan.pdf", blank, paper.ErrNoText, "no_text"},
	}
	for _, tc := range cases {
		_, err := e.lib.Import(context.Background(), tc.name, bytes.NewReader(tc.data), int64(len(tc.data)), "")
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.kind)
			continue
		}
		if pe := Explain(err); pe.Kind != tc.want || pe.Hint == "" || !strings.Contains(pe.Message, tc.name) {
			t.Errorf("%s: explained as %+v", tc.name, pe)
		}
	}
	if list, _ := e.lib.List(); len(list) != 1 || list[0].ID != good.ID {
		t.Fatalf("library after bad imports: %+v", list)
	}
}

func TestImportArxiv(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pdf, err := os.ReadFile(joss)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/pdf/2401.12345", func(w http.ResponseWriter, r *http.Request) { w.Write(pdf) })
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>MultiVae: a library</title>
		<published>2024-03-01T00:00:00Z</published><author><name>Agathe Senellart</name></author></entry></feed>`))
	})
	arx := httptest.NewServer(mux)
	defer arx.Close()
	e.lib.opts.Arxiv = arxiv.Client{PDFBase: arx.URL, APIBase: arx.URL + "/api"}

	if _, err := e.lib.ImportArxiv(context.Background(), "not an id"); err == nil {
		t.Fatal("a bad id was accepted")
	}
	info, err := e.lib.ImportArxiv(context.Background(), "https://arxiv.org/abs/2401.12345")
	if err != nil {
		t.Fatal(err)
	}
	if info.Title != "MultiVae: a library" || info.Year != 2024 || len(info.Authors) != 1 || info.Pages != 5 || info.Name != "arXiv-2401.12345.pdf" {
		t.Fatalf("info = %+v", info)
	}
	// Offline: a clear error.
	e.lib.opts.Arxiv = arxiv.Client{PDFBase: "http://127.0.0.1:1", APIBase: "http://127.0.0.1:1"}
	if _, err := e.lib.ImportArxiv(context.Background(), "2401.54321"); !errors.Is(err, arxiv.ErrOffline) {
		t.Fatalf("offline: %v", err)
	}
}

func TestExportFileName(t *testing.T) {
	t.Parallel()
	for title, want := range map[string]string{
		"Attention Is All You Need": "attention-is-all-you-need-report.md",
		"  ::: ":                    "paper-report.md",
		"Ünïcode/paths: a/b":        "n-code-paths-a-b-report.md",
	} {
		if got := exportFileName(title, "report"); got != want {
			t.Errorf("exportFileName(%q) = %q, want %q", title, got, want)
		}
	}
}

// Every import that reported progress ends with an import_end message naming the file, after
// its progress (and, when it succeeded, after the new library), whether it succeeded or not:
// a window that did not start the import clears its progress line on it.
func TestImportEndFollowsProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pdf, _ := os.ReadFile(joss)
	for _, tc := range []struct {
		name string
		data []byte
	}{{"paper.pdf", pdf}, {"truncated.pdf", pdf[:5000]}} {
		e.heard.mu.Lock()
		e.heard.msgs = nil
		e.heard.mu.Unlock()
		_, err := e.lib.Import(context.Background(), tc.name, bytes.NewReader(tc.data), int64(len(tc.data)), "")
		if (err != nil) != (tc.name == "truncated.pdf") {
			t.Fatalf("%s: %v", tc.name, err)
		}
		e.heard.mu.Lock()
		msgs := e.heard.msgs
		e.heard.mu.Unlock()
		if len(msgs) == 0 {
			t.Fatalf("%s: nothing heard", tc.name)
		}
		last, ok := msgs[len(msgs)-1].(map[string]any)
		if !ok || last["kind"] != ImportEnd || last["name"] != tc.name {
			t.Fatalf("%s: the last message is %#v, of %d", tc.name, msgs[len(msgs)-1], len(msgs))
		}
		ends := 0
		for _, m := range msgs {
			if mm, ok := m.(map[string]any); ok && mm["kind"] == ImportEnd {
				ends++
			}
		}
		if ends != 1 {
			t.Fatalf("%s: %d ends", tc.name, ends)
		}
	}
}
