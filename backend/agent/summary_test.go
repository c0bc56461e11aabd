package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

const cheapModel = "cheap:latest"

// isSummary matches the summariser's requests.
func isSummary(r llm.Request) bool {
	return len(r.Messages) > 0 && r.Messages[0].Role == llm.RoleSystem && r.Messages[0].Content == compact.SummaryPrompt
}

// history fills the log with n finished turns of about 500 tokens each, then an in-flight turn
// that already ran a tool call (a Continue).
func history(t *testing.T, e *env, n int) {
	t.Helper()
	add := func(typ store.EventType, v any) {
		if _, err := e.st.Append(e.sess, typ, v); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		add(store.EventUser, store.UserMessage{Text: fmt.Sprintf("old question %d", i)})
		var b strings.Builder
		for w := range 480 {
			fmt.Fprintf(&b, "word%d ", (i*1000+w)%97)
		}
		add(store.EventAssistant, store.AssistantMessage{Text: fmt.Sprintf("OLD-ANSWER-%d ", i) + b.String()})
	}
	add(store.EventUser, store.UserMessage{Text: "fix the failing test in a.go"})
	add(store.EventAssistant, store.AssistantMessage{Text: "Reading it.", ToolCalls: []llm.ToolCall{call("c1", "read", `{"path":"a.go"}`)}})
	add(store.EventToolResult, store.ToolResult{CallID: "c1", Name: "read", Text: "IN-FLIGHT-RESULT package a"})
}

// compactions returns the compaction events of the log.
func (e *env) compactions(t *testing.T) []compact.Compaction {
	t.Helper()
	evs, _ := e.st.Events(e.sess)
	var out []compact.Compaction
	for _, ev := range evs {
		if ev.Type == store.EventCompaction {
			var c compact.Compaction
			if err := ev.Decode(&c); err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
	}
	return out
}

func (e *env) notices() []string {
	evs, _ := e.st.Events(e.sess)
	var out []string
	for _, ev := range evs {
		var n store.Notice
		if ev.Type == store.EventNotice && ev.Decode(&n) == nil {
			out = append(out, n.Text)
		}
	}
	return out
}

func joined(r llm.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// mainChats are the agent's own requests (not the summariser's).
func mainChats(e *env) []llm.Request {
	var out []llm.Request
	for _, c := range e.model.Chats() {
		if !isSummary(*c.Request) {
			out = append(out, *c.Request)
		}
	}
	return out
}

func newL2Env(t *testing.T) *env {
	e := newEnv(t)
	e.model.SetModels(scripted.DemoModel(), scripted.Model{Name: cheapModel, ContextLength: 8192})
	e.model.On(isSummary).Reply(scripted.Reply{Text: "<analysis>scratch</analysis>\n1. Primary Request\nSUMMARY-TEXT: fix tests"})
	e.model.Default(scripted.Reply{Text: "fixed"})
	return e
}

func l2Turn(e *env, window int) Turn {
	return Turn{Session: e.sess, Model: scripted.DemoModelName, System: "SYSTEM", Tools: &fakeTools{},
		Context: compact.NewManager(compact.Defaults(), compact.NewMemStore(), compact.State{}),
		Window:  window, SummaryModel: cheapModel, SummaryWindow: 8192, Instructions: "<instructions>RULES</instructions>"}
}

func TestSummaryNearTheWindowThenUndo(t *testing.T) {
	t.Parallel()
	e := newL2Env(t)
	history(t, e, 5)
	// A 4k window: usable = 2,560 tokens (4,096 less 1,024 and 512 reserves), the trigger at
	// 2,304; the log is about 2,600.
	end := e.agent.Run(context.Background(), l2Turn(e, 4096))
	if end.Reason != "done" {
		t.Fatalf("end = %+v (%s)", end, e.types())
	}
	chats := e.model.Chats()
	if len(chats) != 2 || !isSummary(*chats[0].Request) {
		t.Fatalf("%d calls; first is the summary: %v; %s %q", len(chats), len(chats) > 0 && isSummary(*chats[0].Request), e.types(), e.notices())
	}
	// The summary request: the cheap model, the ratings, the current query, the old turns.
	sum := *chats[0].Request
	if !strings.HasPrefix(sum.Model, "cheap") {
		t.Errorf("summary model = %q", sum.Model)
	}
	for _, want := range []string{"CRITICAL (3)", "USEFUL (2)", "TANGENTIAL (1)", "IRRELEVANT (0)", "All User Messages"} {
		if !strings.Contains(sum.Messages[0].Content, want) {
			t.Errorf("the summary prompt lacks %q", want)
		}
	}
	if in := sum.Messages[1].Content; !strings.Contains(in, "## Current User Query\nfix the failing test in a.go") || !strings.Contains(in, "OLD-ANSWER-0") {
		t.Errorf("summary input: %.400q", in)
	}
	// The compaction is recorded, with its threshold, and the user is told.
	cs := e.compactions(t)
	if len(cs) != 1 {
		t.Fatalf("compactions: %+v (%s)", cs, e.types())
	}
	c := cs[0]
	if c.Trigger != "auto" || c.From != 0 || c.To < 2 || c.ThresholdTokens != compact.Threshold(4096, compact.Defaults().L2) ||
		c.TokensAfter >= c.TokensBefore || c.TokensBefore <= c.ThresholdTokens || strings.Contains(c.Summary, "scratch") {
		t.Fatalf("compaction = %+v", c)
	}
	if !strings.Contains(e.types(), "compaction,notice,assistant") {
		t.Errorf("events = %s", e.types())
	}
	if n := e.notices(); len(n) == 0 || !strings.HasPrefix(n[len(n)-1], fmt.Sprintf("Context compacted: %d earlier messages summarized (", c.To-c.From)) {
		t.Errorf("notices = %q", n)
	}
	// The next request: system, the summary with the instructions re-injected, the kept turns,
	// and the in-flight turn whole.
	req := mainChats(e)[0]
	all := joined(req)
	if strings.Contains(all, "OLD-ANSWER-0") || !strings.Contains(req.Messages[1].Content, "SUMMARY-TEXT") ||
		!strings.Contains(req.Messages[1].Content, "RULES") || !strings.HasPrefix(req.Messages[1].Content, "[Context compacted —") {
		t.Fatalf("request after the summary:\n%.1200s", all)
	}
	n := len(req.Messages)
	tail := req.Messages[n-3:]
	if tail[0].Role != llm.RoleUser || tail[0].Content != "fix the failing test in a.go" ||
		tail[1].Role != llm.RoleAssistant || len(tail[1].ToolCalls) != 1 ||
		tail[2].Role != llm.RoleTool || tail[2].Content != "IN-FLIGHT-RESULT package a" {
		t.Fatalf("in-flight turn: %+v", tail)
	}
	if got := compact.RequestTokens(req); got > c.TokensAfter+50 || got < c.TokensAfter-50 {
		t.Errorf("tokens after = %d, the request has %d", c.TokensAfter, got)
	}

	// The next turn (a wide window: no new summary) still sees the summary…
	e.say(t, "and the other test?")
	e.agent.Run(context.Background(), l2Turn(e, 1<<20))
	m := mainChats(e)
	if r := joined(m[len(m)-1]); strings.Contains(r, "OLD-ANSWER-0") || !strings.Contains(r, "SUMMARY-TEXT") {
		t.Fatalf("second turn:\n%.600s", r)
	}
	// …until the user undoes it: then the raw turns are back.
	if _, err := e.st.Append(e.sess, store.EventCompactionUndo, store.CompactionUndo{ID: c.ID}); err != nil {
		t.Fatal(err)
	}
	e.say(t, "once more")
	e.agent.Run(context.Background(), l2Turn(e, 1<<20))
	m = mainChats(e)
	if r := joined(m[len(m)-1]); !strings.Contains(r, "OLD-ANSWER-0") || strings.Contains(r, "SUMMARY-TEXT") || strings.Contains(r, "[Context compacted") {
		t.Fatalf("after the undo:\n%.600s", r)
	}
	if len(e.compactions(t)) != 1 {
		t.Fatalf("a summary ran again")
	}
}

func TestStaleCompactionIsIgnored(t *testing.T) {
	t.Parallel()
	e := newL2Env(t)
	history(t, e, 2)
	stale := compact.Compaction{ID: "rstale", From: 0, To: 2, Hash: "r000000000000", Summary: "STALE-SUMMARY", Trigger: "auto"}
	if _, err := e.st.Append(e.sess, store.EventCompaction, stale); err != nil {
		t.Fatal(err)
	}
	e.agent.Run(context.Background(), l2Turn(e, 1<<20))
	r := joined(mainChats(e)[0])
	if strings.Contains(r, "STALE-SUMMARY") || !strings.Contains(r, "OLD-ANSWER-0") {
		t.Fatalf("a compaction that does not match the log was applied:\n%.600s", r)
	}
	// ActiveCompaction checks the messages, not just the range.
	evs, _ := e.st.Events(e.sess)
	if c, _ := ActiveCompaction(evs, Messages(evs)); c != nil {
		t.Fatalf("active = %+v", c)
	}
}

func TestOverflowSummarizesOnTheSecondRetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(isSummary).Reply(scripted.Reply{Text: "SUMMARY-TEXT"})
	e.model.On(func(r llm.Request) bool { return !isSummary(r) }).Times(2).Reply(scripted.Reply{Status: 500, Error: "the input length exceeds the context length"})
	e.model.Default(scripted.Reply{Text: "fits now"})
	history(t, e, 3)
	tu := l2Turn(e, 0)
	tu.SummaryModel = ""
	end := e.agent.Run(context.Background(), tu)
	if end.Reason != "done" {
		t.Fatalf("end = %+v (%s)", end, e.types())
	}
	cs := e.compactions(t)
	if len(cs) != 1 || cs[0].Trigger != "overflow" || cs[0].Model != scripted.DemoModelName {
		t.Fatalf("compactions = %+v (%s)", cs, e.types())
	}
	m := mainChats(e)
	if len(m) != 3 || !strings.Contains(joined(m[2]), "SUMMARY-TEXT") || strings.Contains(joined(m[1]), "SUMMARY-TEXT") {
		t.Fatalf("%d requests; the third carries the summary", len(m))
	}
	if n := e.notices(); !strings.Contains(strings.Join(n, "|"), "Context compacted after the model refused") {
		t.Errorf("notices = %q", n)
	}
}

func TestSummaryFailureIsNotTheTurnsError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(isSummary).Reply(scripted.Reply{Status: 400, Error: "bad summary"})
	e.model.Default(scripted.Reply{Text: "fixed"})
	history(t, e, 5)
	end := e.agent.Run(context.Background(), l2Turn(e, 8192))
	if end.Reason != "done" || len(e.compactions(t)) != 0 {
		t.Fatalf("end = %+v (%s)", end, e.types())
	}
	if n := e.notices(); len(n) != 1 || !strings.HasPrefix(n[0], "Context compaction failed") {
		t.Fatalf("notices = %q", n)
	}
}

func TestNoticeNearTheThreshold(t *testing.T) {
	t.Parallel()
	e := newL2Env(t)
	history(t, e, 2)
	tu := l2Turn(e, 0)
	evs, _ := e.st.Events(e.sess)
	if end, ok := e.agent.open(&tu); !ok {
		t.Fatal(end)
	}
	req, _, _, err := e.agent.build(&tu, evs, 0)
	if err != nil {
		t.Fatal(err)
	}
	est := RequestTokens(req, evs)
	// Up to 64k the reserves are a quarter and an eighth of the window, so the threshold is
	// 0.9 × 0.625 = 0.5625 × window: put the request at about 95% of it.
	window := int(float64(est) / 0.95 / 0.5625)
	tu = l2Turn(e, window)
	e.agent.Run(context.Background(), tu)
	if len(e.compactions(t)) != 0 {
		t.Fatalf("compacted below the threshold")
	}
	n := e.notices()
	if len(n) != 1 || !strings.HasPrefix(n[0], "Context is at 9") || !strings.Contains(n[0], "of the compaction threshold") {
		t.Fatalf("notices = %q", n)
	}
}
