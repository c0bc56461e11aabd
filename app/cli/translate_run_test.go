package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// tofu run --translate: a French task reaches the model in English, and the reply is printed
// in French after the English one.
func TestRunTranslate(t *testing.T) {
	model := scripted.New(t, scripted.DemoModel())
	translation := func(r llm.Request) bool {
		return len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, "Translate the user's text")
	}
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		last := scripted.LastUser(r)
		switch {
		case translation(r) && strings.Contains(last, "Résume"):
			return scripted.Reply{Text: "Summarize [[T1]] in one sentence."}
		case translation(r):
			return scripted.Reply{Text: "[[T1]] dit que le tofu est fait de soja."}
		case strings.HasPrefix(last, "Summarize `notes.txt` in one sentence."):
			return scripted.Reply{Text: "`notes.txt` says tofu is made of soy."}
		}
		return scripted.Reply{Text: "untranslated: " + last}
	})
	isolate(t, model.URL)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "Résume `notes.txt` en une phrase, s'il te plaît.", Workspace: t.TempDir(),
		Approve: "never", MaxSteps: 3, Translate: true}, &out, &errOut)
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("run: %+v, %v\n%s", end, err, errOut.String())
	}
	if !strings.Contains(out.String(), "`notes.txt` says tofu is made of soy.") || !strings.Contains(out.String(), "`notes.txt` dit que le tofu est fait de soja.") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "[the reply in fr:]") {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}
