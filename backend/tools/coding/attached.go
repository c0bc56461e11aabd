package coding

import (
	"context"
	"strings"
)

// ReadAttached renders a file the user attached to a message as read_files renders a file of
// the workspace (the same readers: text and code as numbered lines, PDFs through the paper
// extractor in a child, Office files through the Office reader in a child), within limit
// characters. clipped says the text holds only the file's start; the reader's hint to read on
// with a range is dropped, since the model cannot read an attachment again. problem is a
// reason the file cannot be read ("binary file", "the PDF is password-protected", …).
func ReadAttached(ctx context.Context, abs, shown string, limit int) (text string, clipped bool, problem string) {
	var em ReadEntryMeta
	text, _, problem = readEntry(ctx, abs, shown, ReadEntry{Start: 1}, limit, &em)
	if problem != "" {
		return "", false, problem
	}
	if em.Truncated {
		if i := strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n[cut "); i >= 0 {
			text = text[:i+1]
		}
	}
	return text, em.Truncated, ""
}
