package session

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

func TestTitleFrom(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"  hello   world \nsecond line": "hello world",
		"Summarize the related work section of this paper on retrieval augmented generation": "Summarize the related work section of this…",
		strings.Repeat("é", 60): strings.Repeat("é", 48) + "…",
	} {
		if got := TitleFrom(in); got != want || !utf8.ValidString(got) {
			t.Errorf("TitleFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSendRecordsTheStartupFallbackOnce: a message sent with the main model's startup
// replacement creates its session titled by the one rule, with the fallback before the user's
// message; the session's next message does not record it again, another session's does.
func TestSendRecordsTheStartupFallbackOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sw := &store.Fallback{Model: scripted.DemoModelName, From: "gone:7b", Reason: "it is not among the models the providers list", Startup: true}
	f.runner.o.Switched = func() *store.Fallback { return sw }
	f.model.Default(scripted.Reply{Text: "ok"})
	text := strings.Repeat("数据", 40) + "\nsecond line"
	sent, err := f.runner.Send(context.Background(), Message{Text: text}, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if end := sent.Turn.Wait(); end.Reason != store.EndDone || sent.Model != scripted.DemoModelName {
		t.Fatalf("turn: %+v, model %q", end, sent.Model)
	}
	info, _ := f.st.Session(sent.Session)
	if info.Title != TitleFrom(text) || !utf8.ValidString(info.Title) {
		t.Fatalf("title %q, want %q", info.Title, TitleFrom(text))
	}
	types := func(id string) string {
		evs, _ := f.st.Events(id)
		var out []string
		for _, ev := range evs {
			out = append(out, string(ev.Type))
		}
		return strings.Join(out, ",")
	}
	if got := types(sent.Session); !strings.HasPrefix(got, "fallback,user,assistant") {
		t.Fatalf("first events: %s", got)
	}
	again, err := f.runner.Send(context.Background(), Message{Session: sent.Session, Text: "and again"}, Request{})
	if err != nil {
		t.Fatal(err)
	}
	again.Turn.Wait()
	if got := types(sent.Session); strings.Count(got, "fallback") != 1 {
		t.Fatalf("the fallback was recorded again: %s", got)
	}
	other, err := f.runner.Send(context.Background(), Message{Title: "named", Text: "hello"}, Request{})
	if err != nil {
		t.Fatal(err)
	}
	other.Turn.Wait()
	if info, _ := f.st.Session(other.Session); info.Title != "named" || !strings.HasPrefix(types(other.Session), "fallback,user") {
		t.Fatalf("another session: %q %s", info.Title, types(other.Session))
	}
}

// TestSendLogsWhyTheTurnCouldNotStart: with no model, the message stays in the log with the
// error under it (Retry shows), and Send says why.
func TestSendLogsWhyTheTurnCouldNotStart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.cfg.Models.Main = ""
	sent, err := f.runner.Send(context.Background(), Message{Text: "hello"}, Request{})
	if err == nil || sent.Session == "" {
		t.Fatalf("send: %+v %v", sent, err)
	}
	evs, _ := f.st.Events(sent.Session)
	if len(evs) != 2 || evs[0].Type != store.EventUser || evs[1].Type != store.EventError {
		t.Fatalf("events: %+v", evs)
	}
}
