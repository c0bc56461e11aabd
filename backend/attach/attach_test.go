package attach

import (
	"archive/zip"
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/paper/papertest"
	"github.com/tofu-research/tofu/backend/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// read attaches data as name and checks that its bytes round-trip through the store.
func read(t *testing.T, st *store.Store, name string, data []byte) store.Attachment {
	t.Helper()
	a, err := Read(context.Background(), st, name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	back, err := st.RequestPart(a.Blob)
	if err != nil || !bytes.Equal(back, data) || a.Size != len(data) {
		t.Fatalf("%s: the blob %q does not give the bytes back: %v", name, a.Blob, err)
	}
	return a
}

// TestFilesBecomeTextWithTheirTokens: a code file, a PDF and a Word file are read by
// read_files' readers (numbered lines, the paper extractor's pages, the Office reader), their
// tokens counted on the text the model reads; the bytes are kept whole.
func TestFilesBecomeTextWithTheirTokens(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	code := read(t, st, "main.go", []byte("package main\n\nfunc main() { println(\"hi\") }\n"))
	if code.Kind != store.AttachFile || code.Clipped || !strings.Contains(code.Text, "== main.go (3 lines) ==\n1\tpackage main\n") ||
		code.Tokens != tokens.Count(code.Text) || code.Tokens < 10 {
		t.Fatalf("code: %+v", code)
	}

	var pdf bytes.Buffer
	if err := papertest.ManyPages(&pdf, 2, true); err != nil {
		t.Fatal(err)
	}
	doc := read(t, st, "paper.pdf", pdf.Bytes())
	if doc.Kind != store.AttachFile || doc.MimeType != "application/pdf" || !strings.Contains(doc.Text, "--- page 2 ---") ||
		!strings.Contains(doc.Text, "Page b of many.") || doc.Tokens != tokens.Count(doc.Text) {
		t.Fatalf("pdf: %+v", doc)
	}

	var docx bytes.Buffer
	zw := zip.NewWriter(&docx)
	f, _ := zw.Create("word/document.xml")
	f.Write([]byte(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		`<w:p><w:r><w:t>Sales grew 12%.</w:t></w:r></w:p></w:body></w:document>`))
	zw.Close()
	word := read(t, st, "report.docx", docx.Bytes())
	if !strings.Contains(word.Text, "Sales grew 12%.") || word.Tokens == 0 {
		t.Fatalf("docx: %+v", word)
	}
}

// TestALargeFileIsClipped: past the budget the text is the file's start, marked clipped and
// saying so to the model; the whole file is still kept.
func TestALargeFileIsClipped(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	big := strings.Repeat("the quick brown fox jumps over the lazy dog\n", 5000) // 220 kB
	a := read(t, st, "log.txt", []byte(big))
	if !a.Clipped || len(a.Text) > TextBudget+500 || !strings.Contains(a.Text, "[clipped: only the start of log.txt is here") ||
		strings.Contains(a.Text, "continue with start=") || a.Tokens != tokens.Count(a.Text) {
		t.Fatalf("clipped %v, %d chars, tail %q", a.Clipped, len(a.Text), a.Text[max(0, len(a.Text)-200):])
	}
}

// TestUnreadableFilesAreRefused: a binary file, an empty one, an image too large to send.
func TestUnreadableFilesAreRefused(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"blob.bin", append([]byte{0, 1, 2, 3}, bytes.Repeat([]byte{0xff, 0}, 100)...), "blob.bin cannot be attached: binary file"},
		{"empty.txt", nil, "empty.txt is empty"},
		{"huge.png", append(pngBytes(t), make([]byte, MaxImageBytes)...), "huge.png is too large for a model to see"},
		{"broken.pdf", []byte("%PDF-1.7\nnot really"), "broken.pdf cannot be attached: the PDF is damaged"},
	} {
		if _, err := Read(context.Background(), st, c.name, c.data); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func pngBytes(t *testing.T) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 3))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAnImageStaysAnImage: its type from its bytes, whatever its name, its cost one image.
func TestAnImageStaysAnImage(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	a := read(t, st, "paste", pngBytes(t))
	if a.Kind != store.AttachImage || a.MimeType != "image/png" || a.Text != "" || a.Tokens != tokens.PerImage {
		t.Fatalf("%+v", a)
	}
}

// TestCheck: who may see images (the provider's capabilities, else the known families), the
// reason given, and the window budget of files.
func TestCheck(t *testing.T) {
	t.Parallel()
	img := []store.Attachment{{Kind: store.AttachImage, Name: "a.png", Tokens: tokens.PerImage}}
	file := func(n int) []store.Attachment {
		return []store.Attachment{{Kind: store.AttachFile, Name: "f.txt", Tokens: n}}
	}
	models := []llm.ModelInfo{
		{Name: "qwen3:8b", Provider: "ollama", Capabilities: []llm.Capability{llm.CapTools, llm.CapThinking}},
		{Name: "llava:latest", Provider: "ollama", Capabilities: []llm.Capability{llm.CapVision}},
		{Name: "gemma3:4b", Provider: "ollama"}, // no capabilities said: the known families decide
	}
	for _, c := range []struct {
		model  string
		window int
		models []llm.ModelInfo
		atts   []store.Attachment
		want   string // "" : accepted
	}{
		{"qwen3:8b", 0, models, img, "qwen3:8b cannot see images; choose a vision model such as llava:latest, gemma3:4b, or remove the image"},
		{"ollama/qwen3:8b", 0, models, img, "ollama/qwen3:8b cannot see images"},
		{"llava", 0, models, img, ""},
		{"gemma3:4b", 0, models, img, ""},
		{"gpt-4o-mini", 0, nil, img, ""},
		{"o3", 0, nil, img, ""},
		{"o3-mini", 0, nil, img, "o3-mini cannot see images; choose a vision model such as gemma3:4b, qwen2.5vl:7b or llava:7b"},
		{"llama3.1:8b", 0, nil, img, "llama3.1:8b cannot see images"},
		{"agent:claude", 0, models, img, "agent:claude is a coding agent: it takes text only"},
		{"qwen3:8b", 8192, models, file(4096), ""},
		{"qwen3:8b", 8192, models, file(4097), "the attachments take 4097 tokens, more than half of qwen3:8b's 8192-token context window"},
		{"qwen3:8b", 0, models, file(1 << 20), ""}, // window unknown
	} {
		err := Check(c.model, c.window, c.models, c.atts)
		if (c.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("Check(%s, %d) = %v, want %q", c.model, c.window, err, c.want)
		}
	}
}
