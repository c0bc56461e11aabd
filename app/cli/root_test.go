package cli

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// stderrOf runs fn with os.Stderr captured.
func stderrOf(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	defer func() { os.Stderr = old }()
	fn()
	w.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// With no model to talk to, the error says how to see Tofu work anyway (the scripted model);
// other errors do not.
func TestNoModelErrorSaysHowToTryTofu(t *testing.T) {
	var code int
	out := stderrOf(t, func() {
		code = exitCode(&llm.Error{Kind: llm.ErrUnreachable, Message: "cannot reach Ollama at http://127.0.0.1:1", Hint: "Start Ollama"})
	})
	if code != 1 || !strings.Contains(out, "hint: Start Ollama") || !strings.Contains(out, "tofu dev fake-model") {
		t.Fatalf("exit %d, stderr:\n%s", code, out)
	}
	if out := stderrOf(t, func() { exitCode(errors.New("something else")) }); strings.Contains(out, "fake-model") {
		t.Fatalf("an unrelated error mentions the scripted model:\n%s", out)
	}
}
