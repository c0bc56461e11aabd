// Package serve is the child's side of backend/paper/worker: it extracts the PDF it is sent.
// It registers nothing itself: worker serves it from its init in every program that links
// worker (tofu, test binaries), and tofu-pdf, the lean extractor, from its main.
package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tofu-research/tofu/backend/paper"
)

// Work names the extraction among a child's kinds of work.
const Work = "pdf"

// Do is the child's work: it extracts the PDF that follows the request, sending progress as
// it goes, then the document or the error.
func Do(raw json.RawMessage, in io.Reader, send func(any)) error {
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		return fmt.Errorf("read the request: %w", err)
	}
	data := make([]byte, req.Size)
	if _, err := io.ReadFull(in, data); err != nil {
		return fmt.Errorf("read the PDF: %w", err)
	}
	opts := paper.Options{Pages: req.Pages, Password: req.Password, Progress: func(done, total int) {
		send(Message{Progress: []int{done, total}}) // the page workers call it one at a time
	}}
	doc, err := paper.Extract(context.Background(), bytes.NewReader(data), req.Size, opts)
	if err != nil {
		send(Message{Error: ToWire(err)})
		return nil
	}
	send(Message{Doc: doc})
	return nil
}
