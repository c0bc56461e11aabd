package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/store"
)

func texts(t *testing.T, st *store.Store, id string) []string {
	t.Helper()
	evs, err := st.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		var u store.UserMessage
		var a store.AssistantMessage
		switch {
		case ev.Type == store.EventUser && ev.Decode(&u) == nil:
			out = append(out, "user: "+u.Text)
		case ev.Type == store.EventAssistant && ev.Decode(&a) == nil:
			out = append(out, "assistant: "+a.Text)
		}
	}
	return out
}

// TestScheduledRunsAreSessions: a prompt job's run is a turn in a new conversation named
// after the job, on the real runner and the scripted model; a watch asks the cheap model in
// a check session of its own and continues its conversation only once the answer is yes.
func TestScheduledRunsAreSessions(t *testing.T) {
	srv := scripted.New(t, scripted.DemoModel())
	answer := "NO, not yet."
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		if u := scripted.LastUser(r); strings.HasPrefix(u, "Condition:") {
			return scripted.Reply{Text: answer}
		} else {
			return scripted.Reply{Text: "Done: " + u}
		}
	})
	f := newFixtureWith(t, srv, t.TempDir())
	cfg, _ := f.app.Settings.config()
	cfg.Models.Main = scripted.DemoModelName
	if _, err := f.app.Settings.Update(Settings{Config: cfg}); err != nil {
		t.Fatal(err)
	}
	e := &schedule.TurnExec{Store: f.store, Runner: f.app.Runner, Call: agent.OneShot{Log: f.store, Provider: f.app.Engine.Providers.Get}.Call,
		Cheap: func() string { return scripted.DemoModelName }}
	due := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

	id, held, err := e.Run(context.Background(), schedule.Job{ID: "j1", Name: "morning", Kind: schedule.KindPrompt, Prompt: "news?"}, due)
	if err != nil || !held {
		t.Fatalf("prompt job: %v %v", held, err)
	}
	info, _ := f.store.Session(id)
	if info.Title != "⏰ morning" || strings.Join(texts(t, f.store, id), "|") != "user: news?|assistant: Done: news?" {
		t.Fatalf("prompt run: %+v %q", info, texts(t, f.store, id))
	}

	conv, _ := f.store.CreateSession("training")
	f.store.Append(conv.ID, store.EventUser, store.UserMessage{Text: "start training"})
	watch := schedule.Job{ID: "w1", Name: "wait", Kind: schedule.KindWatch, Condition: "training finished", Prompt: "report the results", Session: conv.ID}
	check, held, err := e.Run(context.Background(), watch, due)
	if err != nil || held {
		t.Fatalf("first poll: %v %v", held, err)
	}
	if ci, _ := f.store.Session(check); ci.Purpose != store.PurposeSchedule || !strings.Contains(texts(t, f.store, check)[0], "training finished") {
		t.Fatalf("check session: %+v", ci)
	}
	if n := len(texts(t, f.store, conv.ID)); n != 1 {
		t.Fatalf("the conversation moved before the condition held: %d messages", n)
	}
	answer = "YES, it says finished."
	got, held, err := e.Run(context.Background(), watch, due.Add(10*time.Minute))
	if err != nil || !held || got != conv.ID {
		t.Fatalf("second poll: %s %v %v", got, held, err)
	}
	if m := texts(t, f.store, conv.ID); len(m) != 3 || m[1] != "user: report the results" || m[2] != "assistant: Done: report the results" {
		t.Fatalf("conversation: %q", m)
	}
}

// TestWatchReadsOnlyTheRetriedAnswer: a check whose first stream dies after "NO, not" and is
// re-run to "YES" holds (the check's sink once kept the voided attempt, so it read "NO, notYES").
func TestWatchReadsOnlyTheRetriedAnswer(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel())
	srv.OnUser("training finished").Times(1).Reply(scripted.Reply{Text: "NO, not yet finished at all", DieAfter: 2})
	srv.OnUser("training finished").Reply(scripted.Reply{Text: "YES, it says finished."})
	srv.Default(scripted.Reply{Text: "Done."})
	f := newFixtureWith(t, srv, t.TempDir())
	cfg, _ := f.app.Settings.config()
	cfg.Models.Main = scripted.DemoModelName
	if _, err := f.app.Settings.Update(Settings{Config: cfg}); err != nil {
		t.Fatal(err)
	}
	e := &schedule.TurnExec{Store: f.store, Runner: f.app.Runner, Call: agent.OneShot{Log: f.store, Provider: f.app.Engine.Providers.Get}.Call,
		Cheap: func() string { return scripted.DemoModelName }}
	conv, _ := f.store.CreateSession("training")
	watch := schedule.Job{ID: "w1", Name: "wait", Kind: schedule.KindWatch, Condition: "training finished", Prompt: "report the results", Session: conv.ID}
	got, held, err := e.Run(context.Background(), watch, time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
	if err != nil || !held || got != conv.ID {
		t.Fatalf("poll: %s %v %v", got, held, err)
	}
}
