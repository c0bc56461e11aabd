package feishu_test

import (
	"bytes"
	"image"
	pngenc "image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/feishu/feishutest"
)

// TestFilesInAndOut: a file message's resource is downloaded (im/v1/messages/:id/resources/:key,
// type=file) into the conversation's workspace and attached to the turn; an image message's
// (type=image) is saved too; a stranger's file is refused and never downloaded; a file past
// the limit is refused by name (by its Content-Length, or while read when it has none) and
// starts no turn; /file uploads a
// workspace file (im/v1/files) or picture (im/v1/images) and sends it as a file or image
// message; a path that leaves the workspace (.., an absolute path, a link) is refused.
func TestFilesInAndOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.AnswerNotes()
	f.start(t)

	f.fs.SayFile(ownerChat, owner, "notes.txt", []byte(bridgetest.Notes))
	f.waitFor(t, ownerChat, bridgetest.NotesAnswer)
	if b, err := os.ReadFile(filepath.Join(f.WS, "notes.txt")); err != nil || string(b) != bridgetest.Notes {
		t.Fatalf("notes.txt in the workspace = %q, %v", b, err)
	}
	fetched := f.fs.Fetches()

	f.fs.SayFile(strangerChat, stranger, "payload.txt", []byte(bridgetest.Notes))
	if n := f.WaitLogged(refusedLogged, 1); n != 1 {
		t.Fatalf("%d refusals logged, want 1:\n%s", n, f.Log())
	}
	if n := f.fs.Fetches(); n != fetched {
		t.Fatalf("a stranger's file was downloaded (%d downloads, %d before)", n, fetched)
	}
	if _, err := os.Stat(filepath.Join(f.WS, "payload.txt")); err == nil {
		t.Fatal("a stranger's file is in the workspace")
	}

	before := len(f.Model.Chats())
	f.fs.SayLargeFile(ownerChat, owner, "video.mp4", 30<<20)
	f.waitFor(t, ownerChat, "Not attached: video.mp4: too large (30 MB; the limit is 20 MB)")
	f.fs.SayStreamedFile(ownerChat, owner, "stream.bin", 30<<20) // no Content-Length: stopped while read
	f.waitFor(t, ownerChat, "Not attached: stream.bin: too large (the limit is 20 MB)")
	if n := len(f.Model.Chats()); n != before {
		t.Fatalf("a refused file started a turn (%d model calls, %d before)", n, before)
	}

	var png bytes.Buffer
	if err := pngenc.Encode(&png, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	n := len(f.fs.Sent(ownerChat))
	f.fs.SayImage(ownerChat, owner, png.Bytes())
	f.fs.WaitSent(ownerChat, bridgetest.Patience, func(ms []feishutest.Message) bool {
		return len(ms) > n && !bridgetest.Partial(ms[len(ms)-1].Text)
	})
	if b, err := os.ReadFile(filepath.Join(f.WS, "image.png")); err != nil || !bytes.Equal(b, png.Bytes()) {
		t.Fatalf("the image in the workspace: %v\nlog:\n%s", err, f.Log())
	}

	docs := func() []feishutest.Document { return f.fs.Documents(ownerChat) }
	waitDocs := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(bridgetest.Patience); len(docs()) < want && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		if len(docs()) != want {
			t.Fatalf("%d files sent, want %d; the chat = %+v\nlog:\n%s", len(docs()), want, f.fs.Sent(ownerChat), f.Log())
		}
	}
	f.fs.Say(ownerChat, owner, "/file notes.txt")
	waitDocs(1)
	if d := docs()[0]; d.Kind != "file" || d.Name != "notes.txt" || string(d.Data) != bridgetest.Notes {
		t.Fatalf("the file sent = %s %q %q", d.Kind, d.Name, d.Data)
	}
	f.fs.Say(ownerChat, owner, "/file image.png")
	waitDocs(2)
	if d := docs()[1]; d.Kind != "image" || !bytes.Equal(d.Data, png.Bytes()) {
		t.Fatalf("the image sent = %s %q", d.Kind, d.Name)
	}

	for _, p := range f.OutsidePaths(t) {
		f.fs.Say(ownerChat, owner, "/file "+p)
		f.waitFor(t, ownerChat, p+" is outside the conversation's workspace")
	}
	if n := len(docs()); n != 2 {
		t.Fatalf("%d files sent, want only notes.txt and image.png", n)
	}
}
