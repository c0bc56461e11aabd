package slack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestFilesInAndOut: a file shared with a caption (a file_share message) is downloaded with the
// bot token into the conversation's workspace and attached to the turn, the caption the user's
// words; a file past the limit is refused by name without a turn; /tofu file PATH uploads a
// workspace file into the conversation (files.getUploadURLExternal, the upload,
// files.completeUploadExternal).
func TestFilesInAndOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.DefaultFunc(func(r llm.Request) scripted.Reply {
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser && strings.Contains(m.Content, "tofu is made of soybeans") {
				return scripted.Reply{Text: "The notes say soybeans."}
			}
		}
		return scripted.Reply{Text: "I see no notes."}
	})
	f.start(t)
	f.sl.SayFile(ownerDM, owner, "notes.txt", []byte("tofu is made of soybeans\n"), "what do my notes say?")
	f.waitFor(t, ownerDM, "The notes say soybeans.")
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

	before := len(f.Model.Chats())
	f.sl.SayLargeFile(ownerDM, owner, "video.mp4", 30<<20)
	f.waitFor(t, ownerDM, "Not attached: video.mp4")
	if n := len(f.Model.Chats()); n != before {
		t.Fatalf("a refused file started a turn (%d model calls, %d before)", n, before)
	}

	f.sl.Command(ownerDM, owner, "/tofu", "file notes.txt")
	if !f.sl.Until(bridgetest.Patience, func() bool { return len(f.sl.Documents(ownerDM)) == 1 }) {
		t.Fatalf("nothing uploaded; the chat = %+v\nlog:\n%s", f.sl.Sent(ownerDM), f.Log())
	}
	if d := f.sl.Documents(ownerDM)[0]; d.Name != "notes.txt" || string(d.Data) != "tofu is made of soybeans\n" {
		t.Fatalf("the upload = %+v", d)
	}
	f.allAcked(t)
}
