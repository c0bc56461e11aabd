package app

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// Regression: a paper's hidden "Report: …" session showed in the chat view after a reload
// (the first session of the list was selected). Internal sessions are not conversations.
func TestListHidesInternalSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	chat, _ := f.app.Sessions.Create("mine")
	f.store.Append(chat.ID, store.EventUser, store.UserMessage{Text: "hi"})
	for _, p := range []store.Purpose{store.PurposeQA, store.PurposeReport, store.PurposeTranslation} {
		s, _ := f.store.CreateSession("Report: a paper")
		f.store.Append(s.ID, store.EventUser, store.UserMessage{Text: "summarize"})
		if _, err := f.store.UpdateSession(s.ID, func(i *store.SessionInfo) { i.Paper, i.Purpose = "p1", p }); err != nil {
			t.Fatal(err)
		}
	}
	list, err := f.app.Sessions.List()
	if err != nil || len(list) != 1 || list[0].ID != chat.ID {
		t.Fatalf("List = %+v, %v; want only the conversation", list, err)
	}
}

// Empty "New conversation" stubs a run left behind are gone when Tofu starts again; a titled
// or configured session, or one with a message, stays.
func TestStartRemovesEmptyStubs(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel()).ScriptDemo()
	dir, cfg := t.TempDir(), t.TempDir()
	f, closeApp := openFixture(t, srv, dir, cfg)
	stub, _ := f.app.Sessions.Create("")
	named, _ := f.app.Sessions.Create("Plans")
	used, _ := f.app.Sessions.Create("")
	f.store.Append(used.ID, store.EventUser, store.UserMessage{Text: "hi"})
	agentic, _ := f.app.Sessions.Create("")
	f.store.UpdateSession(agentic.ID, func(i *store.SessionInfo) { i.Workspace = t.TempDir() })
	closeApp()

	f, closeApp = openFixture(t, srv, dir, cfg)
	defer closeApp()
	list, _ := f.app.Sessions.List()
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	got := strings.Join(ids, " ")
	if strings.Contains(got, stub.ID) || len(list) != 3 {
		t.Fatalf("after a restart: %v; want all but the stub %s (named %s, used %s, agent %s)", ids, stub.ID, named.ID, used.ID, agentic.ID)
	}
}

// Regression: a message sent with no model stayed in the log with no error and no Retry.
// The failure to start is recorded under it.
func TestSendWithoutModelRecordsTheError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.app.Sessions.Create("")
	if err := f.app.Chat.Send(info.ID, "hello", ""); err == nil {
		t.Fatal("Send with no model succeeded")
	}
	evs := f.events(t, info.ID)
	if types(evs) != "user,error" {
		t.Fatalf("events = %s", types(evs))
	}
	var e store.ErrorInfo
	if evs[1].Decode(&e) != nil || !e.Retryable || e.Kind != llm.ErrModelNotFound || e.Hint == "" {
		t.Fatalf("error event %+v", e)
	}
	// Retry with a model then answers.
	if err := f.app.Chat.Retry(info.ID, scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
}

// Leaving a "New conversation" discards it only while it is untouched.
func TestDiscardKeepsConversations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stub, _ := f.app.Sessions.Create("")
	used, _ := f.app.Sessions.Create("")
	f.store.Append(used.ID, store.EventUser, store.UserMessage{Text: "hi"})
	for _, id := range []string{stub.ID, used.ID, "unknown"} {
		if err := f.app.Sessions.Discard(id); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := f.app.Sessions.List()
	if len(list) != 1 || list[0].ID != used.ID {
		t.Fatalf("after discarding: %+v", list)
	}
}
