package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestTranslateEndToEnd turns translate-then-reason on in the window's Enhance menu
// (frontend/e2e/translate-shot.mjs against `tofu serve`), sends a French message with code and
// a path, and checks the model read it in English, the reply shows in French with a toggle to
// the English original, and the log keeps both texts. Runs when TOFU_E2E=1.
func TestTranslateEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel())
	translation := func(r llm.Request) bool {
		return len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, "Translate the user's text")
	}
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		last := scripted.LastUser(r)
		switch {
		case translation(r) && strings.Contains(last, "Pourquoi"):
			return scripted.Reply{Text: "Why does [[T1]] fail in ［［Ｔ２］］ on my machine?"}
		case translation(r):
			return scripted.Reply{Text: "Parce que [[ t1 ]] a trouvé un appel à 【T2】 avec un mauvais format. Corrigez la chaîne de format."}
		case strings.HasPrefix(last, "Why does `go vet` fail in /work/main on my machine?"):
			return scripted.Reply{Text: "Because `go vet` found a call to `fmt.Printf` with a wrong verb. Fix the format string.",
				TokenDelay: 10 * time.Millisecond, Chunks: 4}
		}
		return scripted.Reply{Text: "The message was not translated: " + last}
	})
	isolate(t, model.URL)
	st, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "translate-shot.mjs", "translate/x.png")
	stop()

	sessions, err := st.Sessions()
	if err != nil || len(sessions) != 1 || !sessions[0].Translate {
		t.Fatalf("sessions %+v, %v: want one with translation on", sessions, err)
	}
	evs, _ := st.Events(sessions[0].ID)
	var user store.UserMessage
	var trs []store.MessageTranslation
	for _, ev := range evs {
		var tr store.MessageTranslation
		switch {
		case ev.Type == store.EventUser:
			ev.Decode(&user)
		case ev.Type == store.EventMessageTranslation && ev.Decode(&tr) == nil:
			trs = append(trs, tr)
		}
	}
	if !strings.HasPrefix(user.Text, "Pourquoi `go vet`") || len(trs) != 2 || trs[0].To != "en" || trs[1].To != "fr" {
		t.Fatalf("the log holds %q and translations %+v", user.Text, trs)
	}
}
