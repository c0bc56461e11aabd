package manage

import (
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// Ollama's pull errors arrive as text; each is told in the user's terms (the messages are
// v0.6.8's, for the same failures the real tests cause).
func TestPullErrorWords(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		kind llm.ErrorKind
		want string
	}{
		{`pull model manifest: Get "https://registry.ollama.ai/v2/library/qwen3/manifests/8b": dial tcp: lookup registry.ollama.ai on 127.0.0.53:53: server misbehaving`,
			llm.ErrUnreachable, "Could not reach the model registry registry.ollama.ai to pull qwen3:8b: this machine seems to be offline (lookup registry.ollama.ai on 127.0.0.53:53: server misbehaving)."},
		{`pull model manifest: file does not exist`, llm.ErrModelNotFound, "The registry registry.ollama.ai has no model qwen3:8b."},
		{`write /root/.ollama/models/blobs/sha256-1-partial: no space left on device`, llm.ErrServer, "Pulling qwen3:8b failed: the disk is full."},
		{`max retries exceeded: unexpected EOF`, llm.ErrServer, "Pulling qwen3:8b failed: max retries exceeded: unexpected EOF"},
	} {
		e := pullError("qwen3:8b", "registry.ollama.ai", tc.msg)
		if e.Kind != tc.kind || e.Message != tc.want {
			t.Errorf("%s:\n got %s %q\nwant %s %q", tc.msg, e.Kind, e.Message, tc.kind, tc.want)
		}
	}
}
