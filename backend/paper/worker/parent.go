package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/paper"
)

// ExtractLimited is Extract under lim.
func ExtractLimited(ctx context.Context, r io.ReaderAt, size int64, opts paper.Options, lim Limits) (*paper.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prog, err := program()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(prog)
	cmd.Env = append(os.Environ(), envChild+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start the PDF worker: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start the PDF worker: %w", err)
	}
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the PDF worker: %w", err)
	}

	// The request and the file go in while the answers come out; a child that dies early
	// ends the copy with a broken pipe, which its exit explains.
	go func() {
		defer stdin.Close()
		req, _ := json.Marshal(request{Size: size, Pages: opts.Pages, Password: opts.Password,
			Memory: lim.Memory, CPU: int64(lim.CPU.Seconds())})
		if _, err := stdin.Write(append(req, '\n')); err == nil {
			io.Copy(stdin, io.NewSectionReader(r, 0, size))
		}
	}()
	// Cancelled, the child is killed (it cannot be asked: it is busy extracting).
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Kill()
		case <-stop:
		}
	}()

	var doc *paper.Document
	var failed *wireError
	dec := json.NewDecoder(stdout)
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			break
		}
		switch {
		case m.Progress != nil && len(m.Progress) == 2 && opts.Progress != nil:
			opts.Progress(m.Progress[0], m.Progress[1])
		case m.Doc != nil:
			doc = m.Doc
		case m.Error != nil:
			failed = m.Error
		}
	}
	io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	close(stop)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case failed != nil:
		return nil, failed.err()
	case doc != nil && waitErr == nil:
		return doc, nil
	}
	return nil, died(cmd.ProcessState, stderr.String(), lim)
}

// died says why the child ended without an answer, as the extraction's error: a limit it
// went past (paper.ErrTooLarge, as the extractor's own bounds say it), or the first thing it
// said.
func died(st *os.ProcessState, stderr string, lim Limits) error {
	cpu := st.UserTime() + st.SystemTime()
	switch {
	case strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory"):
		return paper.NewError(paper.ErrTooLarge, fmt.Sprintf("extracting it needed more than %d MB of memory", lim.Memory>>20), "")
	case strings.Contains(stderr, "stack exceeds") || strings.Contains(stderr, "stack overflow"):
		return paper.NewError(paper.ErrTooLarge, "its objects nest too deeply to be read", "")
	case lim.CPU > 0 && cpu >= lim.CPU-lim.CPU/10:
		return paper.NewError(paper.ErrTooLarge, fmt.Sprintf("extracting it took more than %s of processor time", lim.CPU), "")
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n") // a Go fatal error's own line
	if first == "" {
		first = st.String()
	}
	return paper.NewError(paper.ErrCorrupt, "the extractor stopped: "+first, "")
}

// tail keeps the first and last bytes a child writes to its standard error: a Go fatal error
// says what it is at the start, and a goroutine dump can run to megabytes after it.
type tail struct {
	mu         sync.Mutex
	head, last []byte
}

const tailKeep = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := tailKeep - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.last = append(t.last, p...)
	if len(t.last) > tailKeep {
		t.last = append(t.last[:0], t.last[len(t.last)-tailKeep:]...)
	}
	return n, nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + string(t.last)
}
