package ollama

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// TestImagesLeftOutForAModelWithoutVision: a conversation that moved to a text-only model
// after images were attached sends them no more (Ollama would refuse or ignore them): each
// message names what was left out (Stream tells the caller first). A vision model and a model
// whose capabilities are unknown get the images; Encode with the recorded params makes the
// same bytes.
func TestImagesLeftOutForAModelWithoutVision(t *testing.T) {
	t.Parallel()
	pic := []byte("\x89PNG\r\n\x1a\n not really an image")
	p := New("http://127.0.0.1:9") // nothing is sent
	for _, c := range []struct {
		info   llm.ModelInfo
		images bool
	}{
		{llm.ModelInfo{Name: "qwen3:8b", Capabilities: []llm.Capability{llm.CapTools}}, false},
		{llm.ModelInfo{Name: "gemma3:4b", Capabilities: []llm.Capability{llm.CapVision}}, true},
		{llm.ModelInfo{Name: "old:1b"}, true}, // capabilities unknown
	} {
		req := llm.Request{Model: c.info.Name, Messages: []llm.Message{{Role: llm.RoleUser, Content: "what is this?", Images: [][]byte{pic}}}}
		chat, params, err := p.chatRequest(req, c.info)
		if err != nil {
			t.Fatal(err)
		}
		got := chat.Messages[0]
		if c.images != (len(got.Images) == 1) || params.NoImages == c.images {
			t.Fatalf("%s: %d images sent, params %+v", c.info.Name, len(got.Images), params)
		}
		if !c.images && got.Content != "what is this?\n[1 image(s) left out: qwen3:8b cannot see images]" {
			t.Fatalf("%s: %q", c.info.Name, got.Content)
		}
		body, _ := json.Marshal(chat)
		ps, _ := json.Marshal(params)
		again, err := Encode(req, ps)
		if err != nil || !bytes.Equal(again, body) {
			t.Fatalf("%s: Encode differs (%v):\n%s\n%s", c.info.Name, err, again, body)
		}
	}
}
