package telegram_test

import (
	"bytes"
	"image"
	pngenc "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/telegram/telegramtest"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestFilesInAndOut: a document the owner sends (getFile, then the download, as the Bot API
// documents them) is saved into the conversation's workspace and reaches the model as the
// window's attachment does, with its caption; a file past the limit is refused, named, and
// starts no turn; /file sends a workspace file back (sendDocument), and a path that leaves
// the workspace (.., an absolute path, a link) is refused.
func TestFilesInAndOut(t *testing.T) {
	t.Parallel()
	files := telegramtest.NewFiles()
	t.Cleanup(files.Close)
	f := &fixture{Tofu: bridgetest.New(t), tg: files.Server}
	f.Model.DefaultFunc(func(r llm.Request) scripted.Reply {
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser && strings.Contains(m.Content, "tofu is made of soybeans") {
				return scripted.Reply{Text: "The notes say soybeans."}
			}
		}
		return scripted.Reply{Text: "I see no notes."}
	})
	f.start(t)

	files.SayFile(owner, owner, "notes.txt", []byte("tofu is made of soybeans\n"), "what do my notes say?")
	f.waitFor(t, ownerChat, "The notes say soybeans.")
	if b, err := os.ReadFile(filepath.Join(f.WS, "notes.txt")); err != nil || string(b) != "tofu is made of soybeans\n" {
		t.Fatalf("notes.txt in the workspace = %q, %v", b, err)
	}
	var saw bool
	for _, c := range f.Model.Chats() {
		saw = saw || strings.Contains(scripted.LastUser(*c.Request), "what do my notes say?")
	}
	if !saw {
		t.Fatal("the caption did not reach the model as the user's words")
	}

	// A photo has no name: it is saved as photo.jpg and goes to the model as an
	// image, or, for a model without vision, is refused with the reason.
	var png bytes.Buffer
	if err := pngenc.Encode(&png, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	n := len(f.tg.Sent(ownerChat))
	files.SayPhoto(owner, owner, png.Bytes(), "")
	msgs := f.tg.Wait(ownerChat, bridgetest.Patience, func(ms []telegramtest.Message) bool {
		return len(ms) > n && !bridgetest.Partial(ms[len(ms)-1].Text)
	})
	if len(msgs) <= n {
		t.Fatal("no answer to the photo")
	}
	if last := msgs[len(msgs)-1].Text; !strings.Contains(last, "cannot see images") { // the scripted model has no vision
		t.Fatalf("the photo's answer = %q", last)
	}
	if b, err := os.ReadFile(filepath.Join(f.WS, "photo.jpg")); err != nil || !bytes.Equal(b, png.Bytes()) {
		t.Fatalf("the photo in the workspace: %v", err)
	}

	before := len(f.Model.Chats())
	files.SayLargeFile(owner, owner, "video.mp4", 30<<20)
	f.waitFor(t, ownerChat, "Not attached: video.mp4 is too large (30 MB; the limit is 20 MB).")
	if n := len(f.Model.Chats()); n != before {
		t.Fatalf("a refused file started a turn (%d model calls, %d before)", n, before)
	}

	f.tg.Say(owner, owner, "/file notes.txt")
	docs := func() []telegramtest.Document { return files.Documents(ownerChat) }
	for deadline := time.Now().Add(bridgetest.Patience); len(docs()) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if len(docs()) != 1 {
		t.Fatalf("/file sent %d documents", len(docs()))
	}
	if d := docs()[0]; d.Name != "notes.txt" || string(d.Data) != "tofu is made of soybeans\n" {
		t.Fatalf("the document sent = %q %q", d.Name, d.Data)
	}

	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.WS, "link.txt")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(f.WS, outside)
	for _, p := range []string{rel, outside, "link.txt"} {
		f.tg.Say(owner, owner, "/file "+p)
		f.waitFor(t, ownerChat, p+" is outside the conversation's workspace")
	}
	f.tg.Say(owner, owner, "/file missing.txt")
	f.waitFor(t, ownerChat, "No file missing.txt in the workspace.")
	if n := len(docs()); n != 1 {
		t.Fatalf("%d documents sent, want only notes.txt", n)
	}
}
