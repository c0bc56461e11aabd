package paper

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

func extractBytes(data []byte, opts Options) (*Document, error) {
	return Extract(context.Background(), bytes.NewReader(data), int64(len(data)), opts)
}

func TestMinimalPDF(t *testing.T) {
	t.Parallel()
	doc, err := extractBytes(textPDF("Hello PDF world", "second line"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Text(); !strings.Contains(got, "Hello PDF world second line") {
		t.Errorf("text = %q", got)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(paperPath(t, "elegantpaper_en"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		data []byte
		want error
	}{
		"empty":          {nil, ErrCorrupt},
		"garbage":        {bytes.Repeat([]byte("not a pdf at all "), 100), ErrCorrupt},
		"header only":    {[]byte("%PDF-1.7\n%%EOF\n"), ErrCorrupt},
		"no text layer":  {minimalPDF("0.5 g 72 72 400 600 re f"), ErrNoText},
		"empty page":     {minimalPDF(""), ErrNoText},
		"truncated head": {real[:2000], ErrCorrupt},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := extractBytes(tc.data, Options{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.Hint == "" {
				t.Errorf("want an *Error with a hint, got %#v", err)
			}
		})
	}
}

func TestNoTextSuggestsOCR(t *testing.T) {
	t.Parallel()
	_, err := extractBytes(minimalPDF(""), Options{})
	if err == nil || !strings.Contains(err.Error(), "OCR") || !strings.Contains(err.Error(), "ocrmypdf") {
		t.Fatalf("err = %v, want an OCR suggestion", err)
	}
}

// A file cut short loses its cross-reference table; pdfcpu rebuilds it from
// the objects, or the error says the file is damaged.
func TestTruncatedPaper(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(paperPath(t, "naacl2006_shinyama"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := extractBytes(real[:len(real)*2/3], Options{})
	switch {
	case err == nil:
		if !doc.Meta.Repaired {
			t.Error("a truncated file read without repair")
		}
		if !strings.Contains(doc.Text(), "Preemptive Information Extraction") {
			t.Error("repaired text lost the title")
		}
	case !errors.Is(err, ErrCorrupt):
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
}

// A PDF 2.0 file is read as it is: its syntax is 1.7's. The library refused its header ("not
// a PDF file"), and pdfcpu's repair kept it, so no 2.0 file could be read at all.
func TestPDF20AndTrailingBytesAreReadDirectly(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(paperPath(t, "naacl2006_shinyama"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := extractBytes(real, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v20 := bytes.Replace(real, []byte("%PDF-1.2"), []byte("%PDF-2.0"), 1) // the same length: offsets hold
	doc, err := extractBytes(v20, Options{})
	if err != nil || doc.Meta.Repaired || doc.Text() != want.Text() {
		t.Fatalf("the paper headed %%PDF-2.0: %v (repaired %v), want its text read directly", err, doc != nil && doc.Meta.Repaired)
	}
	// Bytes after %%EOF (a server's, a gateway's) within the last 1024: read as it is, where
	// it went to an in-memory repair (refused past 128 MB).
	for _, junk := range []string{strings.Repeat("\x00", 700), "\n<html><body>Download complete</body></html>\n"} {
		doc, err := extractBytes(append(bytes.Clone(real), junk...), Options{})
		if err != nil || doc.Meta.Repaired || doc.Text() != want.Text() {
			t.Errorf("the paper with %d bytes after %%%%EOF: %v (repaired %v), want its text read directly", len(junk), err, doc != nil && doc.Meta.Repaired)
		}
	}
}

func TestEncrypted(t *testing.T) {
	t.Parallel()
	var enc bytes.Buffer
	conf := model.NewAESConfiguration("s3cret", "owner-s3cret", 256)
	// pdfcpu's configuration directory is off: pdfrepair, linked in this test binary, said so.
	if err := api.Encrypt(bytes.NewReader(textPDF("Top secret findings")), &enc, conf); err != nil {
		t.Fatal(err)
	}
	_, err := extractBytes(enc.Bytes(), Options{})
	if !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), "password-protected") {
		t.Fatalf("no password: err = %v, want ErrEncrypted", err)
	}
	_, err = extractBytes(enc.Bytes(), Options{Password: "wrong"})
	if !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), "wrong") {
		t.Fatalf("wrong password: err = %v", err)
	}
	doc, err := extractBytes(enc.Bytes(), Options{Password: "s3cret"})
	if err != nil {
		t.Fatalf("right password: %v", err)
	}
	if !strings.Contains(doc.Text(), "Top secret findings") {
		t.Errorf("decrypted text = %q", doc.Text())
	}
}

// A file that is not a PDF is called that, with what it is instead, not "damaged"; it is still
// an ErrCorrupt for callers that only know that kind.
func TestNotAPDFSaysWhatItIs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ data, want string }{
		{"# Tofu\n\nA desktop research assistant.\n", "it is a text file"},
		{"<!DOCTYPE html><html><body>Download the paper</body></html>", "it is a web page"},
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "it is a PNG image"},
		{"PK\x03\x04\x14\x00\x06\x00", "it is a ZIP archive"},
		{"\x1f\x8b\x08\x00\x00\x00", "it is a gzip archive"},
		{"  <?xml version=\"1.0\"?><feed/>", "it is an XML file"},
		{"\x00\x01\x02\x03binary", "it has no %PDF- header"},
	} {
		_, err := extractBytes([]byte(tc.data), Options{})
		if !errors.Is(err, ErrNotPDF) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%q: err = %v, want ErrNotPDF (and ErrCorrupt)", tc.want, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "the file is not a PDF: "+tc.want) || strings.Contains(msg, "damaged") {
			t.Errorf("message = %q, want %q", msg, tc.want)
		}
	}
}
