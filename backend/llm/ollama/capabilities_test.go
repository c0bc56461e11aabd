package ollama

import (
	"slices"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/tofu-research/tofu/backend/llm"
)

// An old server (before 0.6.4) sends no capabilities: they are derived as Ollama derives them,
// and said to be derived; a server that lists them is taken at its word.
func TestCapabilitiesOfOldAndNewServers(t *testing.T) {
	for _, tc := range []struct {
		name          string
		resp          api.ShowResponse
		want          []llm.Capability
		chat, derived bool
	}{
		{"listed", api.ShowResponse{Capabilities: []model.Capability{"completion", "tools", "vision", "thinking"}, Template: "plain"},
			[]llm.Capability{llm.CapTools, llm.CapVision, llm.CapThinking}, true, false},
		{"listed embedding", api.ShowResponse{Capabilities: []model.Capability{"embedding"}}, nil, false, false},
		{"old, tools and thinking in the template", api.ShowResponse{Template: "{{ if .Tools }}{{ end }}{{ if .Think }}{{ end }}"},
			[]llm.Capability{llm.CapTools, llm.CapThinking}, true, true},
		{"old, projector", api.ShowResponse{Template: "{{ .Prompt }}", ProjectorInfo: map[string]any{"clip.has_vision_encoder": true}},
			[]llm.Capability{llm.CapVision}, true, true},
		{"old, vision tensors", api.ShowResponse{ModelInfo: map[string]any{"gemma3.vision.block_count": 27.0}},
			[]llm.Capability{llm.CapVision}, true, true},
		{"old, embedding model", api.ShowResponse{ModelInfo: map[string]any{"bert.pooling_type": 1.0}}, nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caps, chat, derived := Capabilities(&tc.resp)
			if !slices.Equal(caps, tc.want) || chat != tc.chat || derived != tc.derived {
				t.Fatalf("got %v chat=%v derived=%v, want %v chat=%v derived=%v", caps, chat, derived, tc.want, tc.chat, tc.derived)
			}
		})
	}
}
