package bridgetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// Notes is the file the platforms' TestFilesInAndOut send in; NotesAnswer is what the model
// answers once it reads Notes in the user's message (AnswerNotes), "I see no notes." otherwise.
const (
	Notes       = "tofu is made of soybeans\n"
	NotesAnswer = "The notes say soybeans."
)

// AnswerNotes scripts the model to answer NotesAnswer when the conversation holds Notes.
func (f *Tofu) AnswerNotes() {
	f.Model.DefaultFunc(func(r llm.Request) scripted.Reply {
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser && strings.Contains(m.Content, strings.TrimSpace(Notes)) {
				return scripted.Reply{Text: NotesAnswer}
			}
		}
		return scripted.Reply{Text: "I see no notes."}
	})
}

// OutsidePaths are the paths /file must refuse as leaving the workspace: a relative path up
// and out, an absolute one elsewhere, and link.txt, a link in the workspace to a file outside.
func (f *Tofu) OutsidePaths(t *testing.T) []string {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.WS, "link.txt")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(f.WS, outside)
	return []string{rel, outside, "link.txt"}
}
