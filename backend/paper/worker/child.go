package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tofu-research/tofu/backend/paper"
)

// serve is the child: it reads the request and the PDF from in, bounds itself, extracts and
// writes the messages to out. It returns the exit code: 0 once a document or an extraction
// error is written, 2 when the request could not be read.
func serve(in io.Reader, out io.Writer) int {
	br := bufio.NewReader(in)
	line, err := br.ReadBytes('\n')
	var req request
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tofu PDF worker: read the request: %v\n", err)
		return 2
	}
	setLimits(req.Memory, req.CPU) // before the file is read: the bounds hold for all of it
	data := make([]byte, req.Size)
	if _, err := io.ReadFull(br, data); err != nil {
		fmt.Fprintf(os.Stderr, "tofu PDF worker: read the PDF: %v\n", err)
		return 2
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	send := func(m message) {
		enc.Encode(m)
		bw.Flush()
	}
	opts := paper.Options{Pages: req.Pages, Password: req.Password, Progress: func(done, total int) {
		send(message{Progress: []int{done, total}}) // the page workers call it one at a time
	}}
	doc, err := paper.Extract(context.Background(), bytes.NewReader(data), req.Size, opts)
	if err != nil {
		send(message{Error: toWire(err)})
		return 0
	}
	send(message{Doc: doc})
	return 0
}
