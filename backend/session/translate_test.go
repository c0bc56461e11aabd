package session

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// isTranslation tells the translation model's calls from the turn's by their system prompt.
func isTranslation(req llm.Request) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "Translate the user's text")
}

// A French message in a conversation with translate-then-reason on: the model reads it in
// English (code and path kept byte-exact), the reply is logged in French beside the English.
func TestTranslateThenReason(t *testing.T) {
	f := newFixture(t)
	f.cfg.Models.Translation = scripted.DemoModelName
	f.model.On(func(r llm.Request) bool {
		return isTranslation(r) && strings.Contains(scripted.LastUser(r), "Pourquoi")
	}).Reply(scripted.Reply{Text: "Why does [[ t1 ]] fail in ［［Ｔ２］］?"})
	f.model.On(func(r llm.Request) bool {
		return !isTranslation(r) && strings.HasPrefix(scripted.LastUser(r), "Why does `go vet` fail in /work/main?")
	}).Reply(scripted.Reply{Text: "Because `go vet` found a printf bug."})
	f.model.On(func(r llm.Request) bool {
		return isTranslation(r) && strings.Contains(scripted.LastUser(r), "Because")
	}).Reply(scripted.Reply{Text: "Parce que 【T1】 a trouvé une erreur de printf."})
	info, err := f.st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Translate = true }); err != nil {
		t.Fatal(err)
	}
	question := "Pourquoi `go vet` échoue-t-il dans /work/main ?"
	if _, err := f.st.Append(info.ID, store.EventUser, store.UserMessage{Text: question}); err != nil {
		t.Fatal(err)
	}
	end, err := f.runner.Run(context.Background(), Request{Session: info.ID})
	if err != nil || end.Reason != "done" {
		t.Fatalf("turn ended %v, %v", end.Reason, err)
	}
	evs, _ := f.st.Events(info.ID)
	var trs []store.MessageTranslation
	for _, ev := range evs {
		var tr store.MessageTranslation
		if ev.Type == store.EventMessageTranslation && ev.Decode(&tr) == nil {
			trs = append(trs, tr)
		}
	}
	if len(trs) != 2 {
		t.Fatalf("%d translations logged, want the question's and the reply's: %+v", len(trs), trs)
	}
	if trs[0].From != "fr" || trs[0].To != "en" || trs[0].Text != "Why does `go vet` fail in /work/main?" || trs[0].Fallback != "" {
		t.Errorf("question: %+v", trs[0])
	}
	if trs[1].From != "en" || trs[1].To != "fr" || trs[1].Text != "Parce que `go vet` a trouvé une erreur de printf." {
		t.Errorf("reply: %+v", trs[1])
	}
	// The user's text stays in the log as typed.
	var u store.UserMessage
	for _, ev := range evs {
		if ev.Type == store.EventUser && ev.Decode(&u) == nil && u.Text != question {
			t.Errorf("user message rewritten: %q", u.Text)
		}
	}
}

// The translation model failing: the original goes to the model, and the log says why.
func TestTranslateFailureUsesTheOriginal(t *testing.T) {
	f := newFixture(t)
	f.model.On(isTranslation).Reply(scripted.Reply{Status: 400, Error: "no such model"})
	f.model.On(func(r llm.Request) bool {
		return !isTranslation(r) && strings.Contains(scripted.LastUser(r), "Pourquoi")
	}).
		Reply(scripted.Reply{Text: "ok"})
	info, _ := f.st.CreateSession("")
	f.st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Translate = true })
	f.st.Append(info.ID, store.EventUser, store.UserMessage{Text: "Pourquoi le ciel est-il bleu le soir en été ?"})
	end, err := f.runner.Run(context.Background(), Request{Session: info.ID})
	if err != nil || end.Reason != "done" {
		t.Fatalf("turn ended %v, %v", end.Reason, err)
	}
	evs, _ := f.st.Events(info.ID)
	var fallbacks int
	for _, ev := range evs {
		var tr store.MessageTranslation
		if ev.Type == store.EventMessageTranslation && ev.Decode(&tr) == nil && strings.Contains(tr.Fallback, "original text was used") {
			fallbacks++
		}
	}
	if fallbacks != 2 {
		t.Errorf("%d translations logged with the fallback note, want 2 (question and reply)", fallbacks)
	}
}
