package router_test

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/anthropic"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/openai"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// A conversation that had an image for a vision model goes on with a text-only one: on each
// provider's wire the text-only model gets the note instead of an image part, and a vision
// model still gets the image. The scripted server records the request bodies as sent.
func TestEarlierImagesOmittedForTextOnlyModel(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\n-not-a-real-picture-")
	history := []llm.Message{
		{Role: llm.RoleUser, Content: "what is in this picture?", Images: [][]byte{png}},
		{Role: llm.RoleAssistant, Content: "A cat on a mat."},
		{Role: llm.RoleUser, Content: "and its colour?"},
	}
	// imagePart is how each wire carries an image; a text-only request has none of it.
	wires := []struct {
		format    string
		imagePart string
		provider  func(url string) llm.Provider
	}{
		{"ollama", `"images":[`, func(url string) llm.Provider { return ollama.New(url) }},
		{"openai", `"image_url"`, func(url string) llm.Provider { return openai.New(url+"/v1", "") }},
		{"anthropic", `"type":"image"`, func(url string) llm.Provider { return anthropic.New(url, "key") }},
	}
	for _, w := range wires {
		t.Run(w.format, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t,
				scripted.Model{Name: "textonly:8b", Capabilities: []llm.Capability{llm.CapTools}},
				scripted.Model{Name: "llava:7b", Capabilities: []llm.Capability{llm.CapVision}})
			srv.Default(scripted.Reply{Text: "black"})
			r, err := router.New([]router.Target{{Provider: w.provider(srv.URL)}})
			if err != nil {
				t.Fatal(err)
			}
			for _, model := range []string{"textonly:8b", "llava:7b"} {
				for _, err := range r.Stream(t.Context(), llm.Request{Model: model, Messages: history}) {
					if err != nil {
						t.Fatalf("%s: %v", model, err)
					}
				}
			}
			chats := srv.Chats()
			if len(chats) != 2 {
				t.Fatalf("%d chat requests, want 2", len(chats))
			}
			text, vision := chats[0], chats[1]
			if text.Format != w.format || vision.Format != w.format {
				t.Fatalf("formats %s, %s", text.Format, vision.Format)
			}
			if body := string(text.Body); strings.Contains(body, w.imagePart) || !strings.Contains(body, llm.ImageOmitted) {
				t.Errorf("text-only model's request: want the note and no image part, got %s", body)
			}
			first := text.Request.Messages[firstUser(text.Request.Messages)]
			if len(first.Images) != 0 || first.Content != "what is in this picture?\n"+llm.ImageOmitted {
				t.Errorf("text-only model's first message: %q with %d images", first.Content, len(first.Images))
			}
			if body := string(vision.Body); !strings.Contains(body, w.imagePart) || strings.Contains(body, llm.ImageOmitted) {
				t.Errorf("vision model's request: want the image part and no note, got %.400s", body)
			}
			if seen := vision.Request.Messages[firstUser(vision.Request.Messages)]; len(seen.Images) != 1 || string(seen.Images[0]) != string(png) {
				t.Errorf("vision model's first message has %d images", len(seen.Images))
			}
		})
	}
}

// firstUser is the index of the first user message (after any system prompt).
func firstUser(msgs []llm.Message) int {
	for i, m := range msgs {
		if m.Role == llm.RoleUser {
			return i
		}
	}
	return -1
}

// OmitImages leaves the caller's messages as they were and puts one note per image.
func TestOmitImages(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleUser, Images: [][]byte{{1}, {2}}}, {Role: llm.RoleTool, Content: "shot", Images: [][]byte{{3}}}}
	out := llm.OmitImages(msgs)
	if len(msgs[0].Images) != 2 || len(msgs[1].Images) != 1 {
		t.Error("the caller's messages changed")
	}
	if out[0].Content != llm.ImageOmitted+"\n"+llm.ImageOmitted || out[1].Content != "shot\n"+llm.ImageOmitted || llm.HasImages(out) {
		t.Errorf("got %+v", out)
	}
}
