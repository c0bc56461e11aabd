package trace

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/attach"
	"github.com/tofu-research/tofu/backend/attach/attachtest"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// visionModels are a vision model and a text-only one, as the scripted server lists them.
func visionModels() []scripted.Model {
	return []scripted.Model{
		{Name: "gemma3:4b", ContextLength: 32768, Capabilities: []llm.Capability{llm.CapTools, llm.CapVision}},
		{Name: "qwen3:8b", ContextLength: 32768, Capabilities: []llm.Capability{llm.CapTools, llm.CapThinking}},
	}
}

// TestImageAttachmentReachesEveryWire: an image attached to a user message (attach.Read: kept
// as a blob of the store) reaches a vision model as an image of the request over each wire
// format (Ollama's images, OpenAI's image_url data: URL, Anthropic's base64 image block),
// byte for byte; a file attached beside it reaches the model as text. The request is rebuilt
// from the log (the image read from its blob) and hashes to its fingerprint, and the tofu
// export carries the image's bytes.
func TestImageAttachmentReachesEveryWire(t *testing.T) {
	t.Parallel()
	pic := attachtest.SquarePNG(16)
	b64 := base64.StdEncoding.EncodeToString(pic)
	wantOnWire := map[string][]string{
		llm.WireOllama:    {`"images":["` + b64 + `"]`},
		llm.WireOpenAI:    {`"type":"image_url"`, `"url":"data:image/png;base64,` + b64 + `"`},
		llm.WireAnthropic: {`"type":"image"`, `"source":{"type":"base64","media_type":"image/png","data":"` + b64 + `"}`},
	}
	for _, w := range wireTypes {
		t.Run(w.wire, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			st, err := store.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			srv := scripted.New(t, visionModels()...)
			srv.Default(scripted.Reply{Text: "A red square with a blue diagonal."})
			r := runner(t, st, srv, w.wire)
			img, err := attach.Read(context.Background(), st, "shot.png", pic)
			if err != nil {
				t.Fatal(err)
			}
			notes, err := attach.Read(context.Background(), st, "notes.md", []byte("# Notes\nThe square is red.\n"))
			if err != nil {
				t.Fatal(err)
			}
			atts := []store.Attachment{img, notes}
			if err := r.CheckAttachments(context.Background(), "gemma3:4b", atts); err != nil {
				t.Fatalf("a vision model refused: %v", err)
			}
			info, err := st.CreateSession("")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: "What is in the picture?", Attachments: atts}); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Run(context.Background(), session.Request{Session: info.ID, Model: "gemma3:4b"}); err != nil {
				t.Fatal(err)
			}
			r.Shutdown()
			chats := srv.Chats()
			if len(chats) != 1 {
				t.Fatalf("%d chat calls", len(chats))
			}
			c := chats[0]
			for _, want := range wantOnWire[w.wire] {
				if !bytes.Contains(c.Body, []byte(want)) {
					t.Fatalf("the %s body lacks %s:\n%.600s", w.wire, want, c.Body)
				}
			}
			last := c.Request.Messages[len(c.Request.Messages)-1]
			if len(last.Images) != 1 || !bytes.Equal(last.Images[0], pic) {
				t.Fatalf("the server decoded %d images on the last message", len(last.Images))
			}
			if text := scripted.LastUser(*c.Request); !strings.Contains(text, "What is in the picture?") ||
				!strings.Contains(text, `<attachment kind="file" name="notes.md">`) || !strings.Contains(text, "The square is red.") {
				t.Fatalf("the user message the model read:\n%s", text)
			}
			// Rebuilt from the log, the image read from its blob: the same bytes.
			res, err := Verify(st, info.ID)
			if err != nil || res.Verified != 1 {
				t.Fatalf("verify: %+v %v", res, err)
			}
			var buf bytes.Buffer
			if err := Export(&buf, st, info.ID, FormatTofu); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Attachments []exportedAttachment `json:"attachments"`
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.Attachments) != 2 ||
				doc.Attachments[0].Blob != img.Blob || !bytes.Equal(doc.Attachments[0].Data, pic) {
				t.Fatalf("export attachments: %v %+v", err, doc.Attachments)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestImageRefusedForATextOnlyModel: before anything is sent, an image for a model that does
// not see images is refused with the reason and a vision model to choose instead: from
// Ollama's capabilities, and from the known families where the server says nothing (an
// OpenAI-compatible server). Runner.Send refuses it too, writing nothing.
func TestImageRefusedForATextOnlyModel(t *testing.T) {
	t.Parallel()
	for _, w := range wireTypes[:2] { // Anthropic's models all see images
		t.Run(w.wire, func(t *testing.T) {
			t.Parallel()
			st, err := store.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			srv := scripted.New(t, visionModels()...)
			r := runner(t, st, srv, w.wire)
			defer r.Shutdown()
			img, err := attach.Read(context.Background(), st, "shot.png", attachtest.SquarePNG(16))
			if err != nil {
				t.Fatal(err)
			}
			err = r.CheckAttachments(context.Background(), "qwen3:8b", []store.Attachment{img})
			if err == nil || !strings.HasPrefix(err.Error(), "qwen3:8b cannot see images; choose a vision model such as gemma3:4b") {
				t.Fatalf("refusal = %v", err)
			}
			// Sent anyway (the CLI, a bridge): refused before anything is written.
			sent, err := r.Send(context.Background(), session.Message{Text: "What is this?", Attachments: []store.Attachment{img}},
				session.Request{Model: "qwen3:8b"})
			if err == nil || !strings.Contains(err.Error(), "qwen3:8b cannot see images") || sent.Session != "" {
				t.Fatalf("Send = %+v, %v", sent, err)
			}
			if list, err := st.Sessions(); err != nil || len(list) != 0 {
				t.Fatalf("sessions after a refused send: %v %v", list, err)
			}
			if len(srv.Chats()) != 0 {
				t.Fatal("a request was sent")
			}
		})
	}
}
