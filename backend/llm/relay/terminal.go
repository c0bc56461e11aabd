package relay

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

// Terminal answers on a terminal: it prints the newest messages (since the model last spoke)
// and the tool list, and reads the answer from In up to a line holding only "." (or the end
// of input). Requests are answered one at a time.
type Terminal struct {
	In  io.Reader
	Out io.Writer

	mu sync.Mutex
	rd *bufio.Reader
}

func (t *Terminal) Answer(ctx context.Context, n int, req llm.Request) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rd == nil {
		t.rd = bufio.NewReader(t.In)
	}
	if err := ctx.Err(); err != nil {
		return "", err // the client left while an earlier request was being answered
	}
	fmt.Fprintf(t.Out, "\n===== request %d (model %s, %d messages) =====\n\n", n, req.Model, len(req.Messages))
	// What came since the model last spoke: the tool results, or the user's message (the system
	// prompt is long and the same every time; the files mode shows everything).
	start := max(len(req.Messages)-1, 0)
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleAssistant {
			start = min(i+1, len(req.Messages)-1)
			break
		}
	}
	for _, m := range req.Messages[start:] {
		fmt.Fprintf(t.Out, "## %s\n\n", m.Role)
		writeMessage(t.Out, m)
	}
	writeTools(t.Out, req.Tools, false)
	fmt.Fprintf(t.Out, "%s\nEnd the answer with a line holding only \".\".\n> ", ReplySyntax)
	var b strings.Builder
	for {
		line, err := t.rd.ReadString('\n')
		if strings.TrimRight(line, "\r\n") == "." {
			break
		}
		b.WriteString(line)
		if err == io.EOF {
			if b.Len() == 0 {
				return "", fmt.Errorf("end of input")
			}
			break
		} else if err != nil {
			return "", fmt.Errorf("read answer: %w", err)
		}
	}
	return b.String(), nil
}

// Refuse says why the answer cannot be sent; the next Answer reads a corrected one.
func (t *Terminal) Refuse(n int, _ string, why error) error {
	fmt.Fprintf(t.Out, "\nThe answer to request %d was refused: %v\nAnswer again.\n", n, why)
	return nil
}
