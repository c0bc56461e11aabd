package library

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

var markers = regexp.MustCompile(`⟦(\d+)⟧`)

// translating matches a translation request into lang.
func translating(lang string) func(llm.Request) bool {
	return func(req llm.Request) bool {
		return len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "Translate each numbered") &&
			strings.Contains(req.Messages[0].Content, lang)
	}
}

// answerMarked translates each numbered paragraph as "<prefix>-n"; with merge it drops the
// last marker of a batch of several, as models sometimes do.
func answerMarked(prefix string, merge bool) func(llm.Request) scripted.Reply {
	return func(req llm.Request) scripted.Reply {
		ms := markers.FindAllStringSubmatch(scripted.LastUser(req), -1)
		if merge && len(ms) > 1 {
			ms = ms[:len(ms)-1]
		}
		var b strings.Builder
		for _, m := range ms {
			fmt.Fprintf(&b, "⟦%s⟧ %s-%s\n\n", m[1], prefix, m[1])
		}
		return scripted.Reply{Text: b.String()}
	}
}

// Every batch is one model call logged like a chat turn: the batch, the reply, usage (priced)
// and the router's report; references and formulas are kept; the result is saved and exported.
func TestTranslateLogsEveryCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(translating("French")).ReplyFunc(answerMarked("FR", false))
	info := e.importFile(t, joss)
	if err := e.lib.Translate(info.ID, "French", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	if p := e.heard.progressEnd(t, "French"); p.State != "done" || p.Done != p.Total {
		t.Fatalf("progress %+v", p)
	}
	tr, err := e.lib.Translation(info.ID, "French")
	if err != nil || !tr.Done || tr.Model != scripted.DemoModelName {
		t.Fatalf("translation: %v %+v", err, tr)
	}
	translated, skipped := 0, 0
	for _, it := range tr.Items {
		switch {
		case it.Skipped && it.Text != "":
			t.Fatalf("a skipped paragraph was translated: %+v", it)
		case it.Skipped:
			skipped++
		case !strings.HasPrefix(it.Text, "FR-"):
			t.Fatalf("paragraph not translated: %+v", it)
		default:
			translated++
		}
	}
	if translated < 10 || skipped < 1 {
		t.Fatalf("%d translated, %d kept", translated, skipped)
	}

	s, err := e.store.Session(tr.Session)
	if err != nil || s.Paper != info.ID || s.Purpose != store.PurposeTranslation {
		t.Fatalf("translation session: %v %+v", err, s)
	}
	evs, _ := e.store.Events(tr.Session)
	calls := len(e.model.Chats())
	want := strings.TrimSuffix(strings.Repeat("user,assistant,usage,model_call,", calls), ",")
	if got := types(evs); got != want {
		t.Fatalf("%d calls, events:\n%s", calls, got)
	}
	var u llm.Usage
	evs[2].Decode(&u)
	if u.Model != scripted.DemoModelName || u.CostUSD != 0.25 || u.LocalInputTokens == 0 || u.OutputTokens == 0 {
		t.Fatalf("usage %+v", u)
	}
	// Each request is its batch alone, not the conversation so far.
	for _, c := range e.model.Chats() {
		if len(c.Request.Messages) != 2 {
			t.Fatalf("a translation request has %d messages", len(c.Request.Messages))
		}
	}
	md, err := e.lib.TranslationMarkdown(info.ID, "French")
	if err != nil || !strings.Contains(md, "FR-1") || !strings.Contains(md, "<!-- page 2 -->") || !strings.HasPrefix(md, "# "+info.Title) {
		t.Fatalf("markdown: %v\n%.400s", err, md)
	}

	// Deleting the paper deletes the translation and its session.
	if err := e.lib.Delete(info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Session(tr.Session); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("translation session survived: %v", err)
	}
	if _, err := e.lib.Translation(info.ID, "French"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("translation survived: %v", err)
	}
}

// A reply that drops a marker is redone one paragraph at a time, each call logged.
func TestTranslateRedoesMergedBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(translating("German")).ReplyFunc(answerMarked("DE", true))
	info := e.importFile(t, joss)
	if err := e.lib.Translate(info.ID, "German", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	if p := e.heard.progressEnd(t, "German"); p.State != "done" {
		t.Fatalf("progress %+v", p)
	}
	tr, _ := e.lib.Translation(info.ID, "German")
	for _, it := range tr.Items {
		if !it.Skipped && it.Text != "DE-1" {
			t.Fatalf("paragraph %+v: want DE-1 (translated alone)", it)
		}
	}
	evs, _ := e.store.Events(tr.Session)
	if n := strings.Count(types(evs), "model_call"); n != len(e.model.Chats()) || n < 3 {
		t.Fatalf("%d model_call events for %d calls", n, len(e.model.Chats()))
	}
}

// A failing model ends the translation with the error, logged in its session; what was done
// stays, and the next Translate resumes in the same session.
func TestTranslateErrorAndResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(translating("Italian")).Reply(scripted.Reply{Status: 400, Error: "the model refused"}).Times(1)
	e.model.On(translating("Italian")).ReplyFunc(answerMarked("IT", false))
	info := e.importFile(t, joss)
	if err := e.lib.Translate(info.ID, "Italian", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	p := e.heard.progressEnd(t, "Italian")
	if p.State != "error" || !strings.Contains(p.Error, "refused") || p.Done == p.Total {
		t.Fatalf("progress %+v", p)
	}
	tr, _ := e.lib.Translation(info.ID, "Italian")
	evs, _ := e.store.Events(tr.Session)
	var ei store.ErrorInfo
	if got := types(evs); got != "user,model_call,error" || evs[2].Decode(&ei) != nil || ei.Model != scripted.DemoModelName || !strings.Contains(ei.Message, "refused") {
		t.Fatalf("events %s: %+v", got, ei)
	}

	e.heard.mu.Lock()
	e.heard.msgs = nil
	e.heard.mu.Unlock()
	if err := e.lib.Translate(info.ID, "Italian", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	if p := e.heard.progressEnd(t, "Italian"); p.State != "done" {
		t.Fatalf("resumed: %+v", p)
	}
	again, _ := e.lib.Translation(info.ID, "Italian")
	if again.Session != tr.Session || !again.Done {
		t.Fatalf("resumed in session %s (was %s), done=%v", again.Session, tr.Session, again.Done)
	}
	if info, _ := e.lib.Info(info.ID); len(info.Translations) != 1 {
		t.Fatalf("translations %v", info.Translations)
	}
}

// Stop interrupts the call in flight: the log says so, the progress says stopped, and no
// error is recorded.
func TestTranslateStop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(translating("Spanish")).Reply(scripted.Reply{Text: scripted.LongText(400), Hold: make(chan struct{})})
	info := e.importFile(t, joss)
	if err := e.lib.Translate(info.ID, "Spanish", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	if err := e.lib.Translate(info.ID, "Spanish", scripted.DemoModelName); err == nil {
		t.Fatal("a second translation of the same paper started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.model.Wait(ctx, func(cs []scripted.Call) bool { return len(cs) > 0 && cs[len(cs)-1].IsChat() }); err != nil {
		t.Fatal(err)
	}
	e.lib.StopTranslate(info.ID)
	if p := e.heard.progressEnd(t, "Spanish"); p.State != "stopped" {
		t.Fatalf("progress %+v", p)
	}
	tr, _ := e.lib.Translation(info.ID, "Spanish")
	evs, _ := e.store.Events(tr.Session)
	got := types(evs)
	if !strings.HasPrefix(got, "user,") || !strings.HasSuffix(got, "interrupted") || strings.Contains(got, "error") {
		t.Fatalf("events after stop: %s", got)
	}
}

func TestTranslateRefusesBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	info := e.importFile(t, joss)
	for _, c := range []struct{ lang, model string }{{"", "m"}, {"a/b", "m"}, {"French", ""}} {
		if err := e.lib.Translate(info.ID, c.lang, c.model); err == nil {
			t.Errorf("Translate(%q, %q) accepted", c.lang, c.model)
		}
	}
	if err := e.lib.Translate("nope", "French", "m"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown paper: %v", err)
	}
}
