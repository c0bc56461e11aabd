package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/attach/attachtest"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestAttachmentsEndToEnd drives the composer in headless Chromium against `tofu serve`
// (frontend/e2e/attach.e2e.mjs): an image and a file picked, a screenshot pasted, a file dropped on the window, refused for
// the text-only main model with nothing lost, sent to a vision model, shown as thumbnails that
// come back after a reload. The model received the two images (picked and pasted) and the file's text; the log
// keeps them as blobs.
func TestAttachmentsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	srv := scripted.New(t,
		scripted.Model{Name: "qwen3:8b", ContextLength: 32768, Capabilities: []llm.Capability{llm.CapTools}},
		scripted.Model{Name: "gemma3:4b", ContextLength: 32768, Capabilities: []llm.Capability{llm.CapTools, llm.CapVision}})
	srv.Default(scripted.Reply{Text: "I see a red square with a blue diagonal."})
	isolate(t, srv.URL)
	if _, err := config.Open(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")).Update(func(c *config.Config) error {
		c.Models.Main = "qwen3:8b"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pic := attachtest.SquarePNG(64)
	imagePath, filePath := filepath.Join(dir, "square.png"), filepath.Join(dir, "notes.md")
	os.WriteFile(imagePath, pic, 0o600)
	os.WriteFile(filePath, []byte("# Notes\nThe square is red, the diagonal blue.\n"), 0o600)

	st, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "attach.e2e.mjs", "attach.png", "TOFU_E2E_IMAGE="+imagePath, "TOFU_E2E_FILE="+filePath)
	stop()

	chats := srv.Chats()
	if len(chats) != 1 || chats[0].Request.Model != "gemma3:4b" {
		t.Fatalf("%d chat requests (the refused one must not be sent)", len(chats))
	}
	req := chats[0].Request
	last := req.Messages[len(req.Messages)-1]
	if len(last.Images) != 2 || !bytes.Equal(last.Images[1], pic) || !bytes.Equal(last.Images[0], pic) || !strings.Contains(last.Content, "The square is red, the diagonal blue.") ||
		!strings.Contains(last.Content, "dropped on the conversation") {
		t.Fatalf("the model got %d images and:\n%s", len(last.Images), last.Content)
	}
	list, _ := st.Sessions()
	evs, _ := st.Events(list[0].ID)
	var u store.UserMessage
	if evs[0].Type != store.EventUser || evs[0].Decode(&u) != nil || len(u.Attachments) != 4 {
		t.Fatalf("the log starts with %s: %+v", evs[0].Type, u)
	}
	for _, a := range u.Attachments {
		if data, err := st.RequestPart(a.Blob); err != nil || len(data) != a.Size {
			t.Fatalf("attachment %s: blob %s: %v", a.Name, a.Blob, err)
		}
	}
}
