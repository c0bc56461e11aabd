package realollama

import (
	"bytes"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

// Ollama's own decoder reads the file back with the metadata and tensors written.
func TestWriteGGUFDecodes(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteGGUF(&buf, DefaultTinyModel); err != nil {
		t.Fatal(err)
	}
	f, err := ggml.Decode(bytes.NewReader(buf.Bytes()), -1)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	kv := f.KV()
	if got := kv.Architecture(); got != "llama" {
		t.Errorf("architecture %q, want llama", got)
	}
	if got := kv.Uint("context_length"); got != uint32(DefaultTinyModel.ContextLength) {
		t.Errorf("context_length %d, want %d", got, DefaultTinyModel.ContextLength)
	}
	tokens := kv.Strings("tokenizer.ggml.tokens")
	if len(tokens) != 269 || tokens[3] != "<0x00>" {
		t.Errorf("vocabulary of %d tokens starting %q", len(tokens), tokens[:4])
	}
	if n := len(f.Tensors().Items()); n != 3+9*DefaultTinyModel.Layers {
		t.Errorf("%d tensors", n)
	}
	if int(f.Length) != buf.Len() {
		t.Errorf("decoder read %d bytes of %d", f.Length, buf.Len())
	}
}
