// Package worker extracts PDFs in a child process (backend/child), so that a file which takes
// the extractor down takes down only the child: the library's import, fetch_url and
// read_files extract through here. `tofu paper extract` is its own process already and calls
// backend/paper directly.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tofu-research/tofu/backend/child"
	"github.com/tofu-research/tofu/backend/paper"
	_ "github.com/tofu-research/tofu/backend/paper/pdfrepair"
	"github.com/tofu-research/tofu/backend/paper/worker/serve"
)

// Every program that links worker can be its own extracting child (tofu-pdf, beside it, is
// preferred: backend/child); pdfrepair, linked here, repairs in process.
func init() { child.Serve(serve.Work, serve.Do) }

// Extract is paper.Extract in a child process under child.DefaultLimits: the same document or
// the same errors (errors.Is finds paper's sentinels), and paper.ErrTooLarge when the child
// went past a limit.
func Extract(ctx context.Context, r io.ReaderAt, size int64, opts paper.Options) (*paper.Document, error) {
	return ExtractLimited(ctx, r, size, opts, child.DefaultLimits)
}

// Open is paper.OpenContext in a child process: the PDF file at path.
func Open(ctx context.Context, path string, opts paper.Options) (*paper.Document, error) {
	return paper.ExtractFile(path, func(r io.ReaderAt, size int64) (*paper.Document, error) { return Extract(ctx, r, size, opts) })
}

// ExtractLimited is Extract under lim.
func ExtractLimited(ctx context.Context, r io.ReaderAt, size int64, opts paper.Options, lim child.Limits) (*paper.Document, error) {
	var doc *paper.Document
	var failed *serve.WireError
	err := child.Run(ctx, serve.Work, serve.Request{Size: size, Pages: opts.Pages, Password: opts.Password},
		io.NewSectionReader(r, 0, size), lim, func(raw json.RawMessage) error {
			var m serve.Message
			if err := json.Unmarshal(raw, &m); err != nil {
				return fmt.Errorf("the PDF worker's answer: %w", err)
			}
			switch {
			case len(m.Progress) == 2 && opts.Progress != nil:
				opts.Progress(m.Progress[0], m.Progress[1])
			case m.Doc != nil:
				doc = m.Doc
			case m.Error != nil:
				failed = m.Error
			}
			return nil
		})
	var died *child.Died
	switch {
	case errors.As(err, &died) && died.Limit:
		return nil, paper.NewError(paper.ErrTooLarge, "extracting it "+died.Reason, "")
	case errors.As(err, &died):
		return nil, paper.NewError(paper.ErrCorrupt, "the extractor "+died.Reason, "")
	case err != nil:
		return nil, err
	case failed != nil:
		return nil, failed.Err()
	case doc == nil:
		return nil, paper.NewError(paper.ErrCorrupt, "the extractor gave no answer", "")
	}
	return doc, nil
}
