package coding

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/worker"
)

// Documents read_files turns into text: PDFs through the paper extractor (ranges are pages),
// Office files in pure Go (ranges are lines of the text). Their caps are the text files'.
const (
	MaxDocumentBytes = 64 << 20 // a document larger than this is refused
	// maxOfficeXML bounds the XML read out of an Office file's zip: a zip bomb inflates past it.
	maxOfficeXML = 64 << 20
)

// documentKind names the document formats read_files converts ("": not one).
func documentKind(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".pdf":
		return "pdf"
	case ".docx":
		return "docx"
	case ".xlsx":
		return "xlsx"
	case ".pptx":
		return "pptx"
	}
	return ""
}

// readPDF renders the pages e asks for (start and end are pages), each after a page marker.
func readPDF(ctx context.Context, abs, shown string, e ReadEntry, limit int, em *ReadEntryMeta) (string, []byte, string) {
	opts := paper.Options{}
	if e.Start > 0 || e.End > 0 {
		opts.Pages = paper.PageRange{{From: max(e.Start, 1), To: max(e.End, 0)}}
	}
	doc, err := worker.Open(ctx, abs, opts) // a workspace's PDF, in a child
	if err != nil {
		return "", nil, documentError("PDF", err)
	}
	total := doc.Meta.Pages
	em.Lines = total
	if len(doc.Pages) == 0 {
		return "", nil, fmt.Sprintf("no pages in that range (the PDF has %d pages)", total)
	}
	var body strings.Builder
	first, last := doc.Pages[0].Number, 0
	cut := false
	for _, p := range doc.Pages {
		var page strings.Builder
		fmt.Fprintf(&page, "--- page %d ---\n", p.Number)
		for i, bl := range p.Blocks {
			if i > 0 {
				page.WriteByte('\n')
			}
			page.WriteString(bl.Text)
			page.WriteByte('\n')
		}
		if body.Len()+page.Len() > limit && last > 0 {
			cut = true
			break
		}
		text := page.String()
		if len(text) > limit {
			text = text[:utf8Floor(text, limit)] + "\n[page cut (output limit)]\n"
			cut = true
		}
		body.WriteString(text)
		last = p.Number
		if cut {
			break
		}
	}
	em.Start, em.End, em.Truncated = first, last, cut
	head := fmt.Sprintf("== %s (PDF, %d pages) ==\n", shown, total)
	if first != 1 || last != total {
		head = fmt.Sprintf("== %s (PDF) pages %d-%d of %d ==\n", shown, first, last, total)
	}
	tail := ""
	if cut && last < total {
		tail = fmt.Sprintf("[cut after page %d (output limit); continue with start=%d]\n", last, last+1)
	}
	return head + body.String() + tail, nil, ""
}

// documentError is the model-facing reason a document cannot be read.
func documentError(kind string, err error) string {
	switch {
	case errors.Is(err, paper.ErrEncrypted) || errors.Is(err, errEncryptedOffice):
		return fmt.Sprintf("the %s is password-protected: it cannot be read", kind)
	case errors.Is(err, paper.ErrNoText):
		return "the PDF has no text layer (a scan?): nothing to read"
	case errors.Is(err, paper.ErrTooLarge):
		return "the PDF goes past the extractor's limits: read a page range"
	case errors.Is(err, errTooLargeOffice):
		return fmt.Sprintf("the %s goes past the reader's limits%s (it cannot be read)", kind, after(err, errTooLargeOffice))
	case errors.Is(err, paper.ErrCorrupt), errors.Is(err, zip.ErrFormat), errors.Is(err, errCorruptOffice):
		return fmt.Sprintf("the %s is damaged or not in its format: %s", kind, trimErr(err))
	}
	return fmt.Sprintf("cannot read the %s: %s", kind, trimErr(err))
}
