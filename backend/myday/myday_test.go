package myday

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// dated is the real store with the times of the events moved to fixed days: a session in
// today has its events at noon of 2026-03-10 (a minute apart), the others on the day before.
// The store stamps events with the wall clock, which a test must not depend on.
type dated struct {
	*store.Store
	today map[string]bool
}

var noon = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func (d dated) at(id string) time.Time {
	if d.today[id] {
		return noon
	}
	return noon.AddDate(0, 0, -1)
}

func (d dated) Sessions() ([]store.SessionInfo, error) {
	infos, err := d.Store.Sessions()
	for i := range infos {
		infos[i].Created, infos[i].Updated = d.at(infos[i].ID), d.at(infos[i].ID).Add(time.Hour)
	}
	return infos, err
}

func (d dated) Events(id string) ([]store.Event, error) {
	evs, err := d.Store.Events(id)
	for i := range evs {
		evs[i].Time = d.at(id).Add(time.Duration(i) * time.Minute)
	}
	return evs, err
}

func session(t *testing.T, st *store.Store, title string, info func(*store.SessionInfo), entries ...store.Entry) string {
	t.Helper()
	s, err := st.CreateSession(title)
	if err != nil {
		t.Fatal(err)
	}
	if info != nil {
		if _, err := st.UpdateSession(s.ID, info); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.AppendBatch(s.ID, entries...); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func user(text string) store.Entry {
	return store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: text}}
}

func reply(text string, calls int) store.Entry {
	a := store.AssistantMessage{Text: text}
	for range calls {
		a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: "c", Name: "run_command", Arguments: json.RawMessage(`{}`)})
	}
	return store.Entry{Type: store.EventAssistant, Payload: a}
}

func usage(model string, in, out int, cost float64) store.Entry {
	return store.Entry{Type: store.EventUsage, Payload: llm.Usage{Model: model, InputTokens: in, OutputTokens: out, CostUSD: cost}}
}

func end(reason store.EndReason) store.Entry {
	return store.Entry{Type: store.EventTurnEnd, Payload: store.TurnEnd{Reason: reason}}
}

// fixture is a day with a finished coding conversation, one stopped at its step limit, a
// paper's Q&A, and a conversation of the day before.
func fixture(t *testing.T) (*store.Store, dated) {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d := dated{Store: st, today: map[string]bool{}}
	d.today[session(t, st, "Parser fix", nil,
		user("Fix the CSV parser.\nTODO: add a test for quoted commas"), reply("", 2), usage("qwen3:8b", 1000, 50, 0),
		reply("Fixed.\n- [ ] release 1.2", 0), usage("qwen3:8b", 1500, 80, 0), end(store.EndDone))] = true
	d.today[session(t, st, "Benchmarks", nil,
		user("Run the benchmarks"), reply("", 1), usage("openai/gpt-5-mini", 2000, 100, 0.0125), end(store.EndMaxSteps))] = true
	d.today[session(t, st, "Q&A: Attention", func(i *store.SessionInfo) { i.Paper, i.Purpose = "p1", store.PurposeQA },
		user("What is multi-head attention?"), reply("It is…", 0), usage("qwen3:8b", 500, 20, 0), end(store.EndDone))] = true
	// A chat reply (no turn_end) leaves nothing open; a message without a reply does.
	d.today[session(t, st, "Chat", nil, user("hello"), reply("hi", 0), usage("qwen3:8b", 0, 0, 0))] = true
	d.today[session(t, st, "Waiting", nil, user("still there?"))] = true
	session(t, st, "Yesterday", nil, user("Old work. TODO: never shown"), reply("ok", 0), usage("qwen3:8b", 9, 9, 0), end(store.EndDone))
	return st, d
}

func paperTitle(id string) string { return map[string]string{"p1": "Attention Is All You Need"}[id] }

// TestReportFiguresFromTheLog: without a cheap model, the figures and an extractive summary.
func TestReportFiguresFromTheLog(t *testing.T) {
	t.Parallel()
	_, d := fixture(t)
	g := New(Options{Store: d, Paper: paperTitle, Now: func() time.Time { return noon.Add(6 * time.Hour) }, Loc: time.UTC})
	r, err := g.Generate(context.Background(), g.Today())
	if err != nil {
		t.Fatal(err)
	}
	if r.Date != "2026-03-10" || r.Prose != ProseExtractive || len(r.Sessions) != 4 {
		t.Fatalf("report: %+v", r)
	}
	if s := r.Sessions[0]; s.Title != "Parser fix" || s.Messages != 1 || s.ToolCalls != 2 || s.Last != "Fixed. - [ ] release 1.2" {
		t.Fatalf("busiest session: %+v", s)
	}
	sort.Slice(r.Open, func(i, j int) bool { return r.Open[i].Title < r.Open[j].Title })
	if len(r.Open) != 2 || r.Open[0].Title != "Benchmarks" || r.Open[0].Why != "the last turn stopped (max_steps)" ||
		r.Open[1].Title != "Waiting" || r.Open[1].Why != "a message has no reply yet" {
		t.Fatalf("open threads: %+v", r.Open)
	}
	if strings.Join(r.Todos, "|") != "add a test for quoted commas|release 1.2" {
		t.Fatalf("todos: %q", r.Todos)
	}
	if len(r.Papers) != 1 || r.Papers[0].Title != "Attention Is All You Need" || r.Papers[0].What != "qa" {
		t.Fatalf("papers: %+v", r.Papers)
	}
	want := []ModelUse{{"qwen3:8b", 4, 3000, 150, 0}, {"openai/gpt-5-mini", 1, 2000, 100, 0.0125}}
	if len(r.Models) != 2 || r.Models[0] != want[0] || r.Models[1] != want[1] {
		t.Fatalf("models: %+v", r.Models)
	}
	if r.Total.Calls != 5 || r.Total.Input != 5000 || r.Total.CostUSD != 0.0125 {
		t.Fatalf("total: %+v", r.Total)
	}
	if !strings.Contains(r.Summary, "Parser fix: Fix the CSV parser.") || !strings.Contains(r.Summary, "5,250 tokens over 5 model calls") {
		t.Fatalf("summary: %s", r.Summary)
	}
	// Stored, and listed among the past days.
	got, ok, err := g.Get("2026-03-10")
	if err != nil || !ok || got.Summary != r.Summary {
		t.Fatalf("stored: %v %v %+v", ok, err, got)
	}
	if _, err := g.Generate(context.Background(), DayOf(noon.AddDate(0, 0, -1), time.UTC)); err != nil {
		t.Fatal(err)
	}
	if past, err := g.Past(); err != nil || strings.Join(past, ",") != "2026-03-10,2026-03-09" {
		t.Fatalf("past = %v, %v", past, err)
	}
}

// TestReportProseByTheCheapModel: with a cheap model, the summary and TODOs are its reply,
// its call is logged in a session of purpose myday, and the figures stay the log's.
func TestReportProseByTheCheapModel(t *testing.T) {
	t.Parallel()
	st, d := fixture(t)
	srv := scripted.New(t, scripted.DemoModel())
	srv.OnUser("Parser fix").Reply(scripted.Reply{Text: "Fixed the CSV parser and ran benchmarks.\n\nTODO:\n- Add the quoted-comma test\n- Rerun the benchmarks with more steps"})
	provider := ollama.New(srv.URL)
	g := New(Options{Store: d, Paper: paperTitle, Loc: time.UTC, Now: func() time.Time { return noon },
		Cheap: func() string { return scripted.DemoModelName }, Call: agent.OneShot{Log: st, Provider: func() (llm.Provider, error) { return provider, nil }}.Call})
	r, err := g.Generate(context.Background(), g.Today())
	if err != nil {
		t.Fatal(err)
	}
	if r.Prose != ProseModel || r.Summary != "Fixed the CSV parser and ran benchmarks." || r.Model != scripted.DemoModelName {
		t.Fatalf("prose: %+v", r)
	}
	if strings.Join(r.Todos, "|") != "Add the quoted-comma test|Rerun the benchmarks with more steps" {
		t.Fatalf("todos: %q", r.Todos)
	}
	info, err := st.Session(r.Session)
	if err != nil || info.Purpose != store.PurposeMyDay || !info.Internal() {
		t.Fatalf("report session: %+v %v", info, err)
	}
	evs, _ := st.Events(r.Session)
	var asked store.UserMessage
	if evs[0].Decode(&asked) != nil || !strings.Contains(asked.Text, `"Benchmarks": 1 messages, 1 tool calls`) || !strings.Contains(asked.Text, "release 1.2") {
		t.Fatalf("facts sent: %s", asked.Text)
	}
	if r.Total.Calls != 5 {
		t.Fatalf("figures changed: %+v", r.Total)
	}
}

// TestReportFallsBackWhenTheModelFails: a failing cheap model leaves the extractive prose,
// with the reason.
func TestReportFallsBackWhenTheModelFails(t *testing.T) {
	t.Parallel()
	st, d := fixture(t)
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Status: 400, Error: "model is broken"})
	provider := ollama.New(srv.URL)
	g := New(Options{Store: d, Loc: time.UTC, Now: func() time.Time { return noon },
		Cheap: func() string { return scripted.DemoModelName }, Call: agent.OneShot{Log: st, Provider: func() (llm.Provider, error) { return provider, nil }}.Call})
	r, err := g.Generate(context.Background(), g.Today())
	if err != nil {
		t.Fatal(err)
	}
	if r.Prose != ProseExtractive || !strings.Contains(r.ProseNote, "model is broken") || !strings.Contains(r.Summary, "Parser fix") {
		t.Fatalf("fallback: %+v", r)
	}
}
