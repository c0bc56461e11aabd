package session

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// sent is what the model read in a request: every message's text, one per line.
func sent(r *llm.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(string(m.Role) + ": " + m.Content + "\n")
	}
	return b.String()
}

// lastSent is what the model read in the last call.
func (f *fixture) lastSent(t *testing.T) string {
	t.Helper()
	chats := f.model.Chats()
	if len(chats) == 0 {
		t.Fatal("no model call")
	}
	return sent(chats[len(chats)-1].Request)
}

func (f *fixture) turn(t *testing.T, id string) {
	t.Helper()
	if end, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("end = %+v, %v", end, err)
	}
}

func (f *fixture) say(t *testing.T, id, text string) uint64 {
	t.Helper()
	ev, err := f.st.Append(id, store.EventUser, store.UserMessage{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return ev.Seq
}

func (f *fixture) forks(t *testing.T, id string) []store.Fork {
	t.Helper()
	evs, err := f.st.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	return store.TreeOf(evs).Forks()
}

func lastUser(t *testing.T, st *store.Store, id string) uint64 {
	t.Helper()
	evs, _ := st.Events(id)
	path := store.ActivePath(evs)
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == store.EventUser {
			return path[i].Seq
		}
	}
	t.Fatal("no user message on the path")
	return 0
}

// TestEditRegenerateAndSwitch: the request after an edit carries the edited message and not
// the old branch; a regeneration reads the same request again; switching back to the first
// version and sending continues that version, without the edited one. The runner keeps the
// session's journal between these turns, so this is also the journal following the branches.
func TestEditRegenerateAndSwitch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	n := 0
	f.model.DefaultFunc(func(r llm.Request) scripted.Reply {
		n++
		return scripted.Reply{Text: "reply " + string(rune('0'+n))}
	})
	id := f.session(t, "", "hello there")
	f.turn(t, id)
	apples := f.say(t, id, "tell me about apples")
	f.turn(t, id)

	if err := f.runner.Edit(id, apples, "tell me about bananas"); err != nil {
		t.Fatal(err)
	}
	f.turn(t, id)
	got := f.lastSent(t)
	if !strings.Contains(got, "bananas") || strings.Contains(got, "apples") || strings.Contains(got, "reply 2") ||
		!strings.Contains(got, "hello there") || !strings.Contains(got, "reply 1") {
		t.Fatalf("request after the edit:\n%s", got)
	}
	edited := f.lastSent(t)

	// Regenerate the reply to the edited message: the same request again, a third reply.
	if err := f.runner.Regenerate(id, lastUser(t, f.st, id)); err != nil {
		t.Fatal(err)
	}
	f.turn(t, id)
	if again := f.lastSent(t); again != edited {
		t.Fatalf("the regenerated reply read another request:\n%s\nwant\n%s", again, edited)
	}
	forks := f.forks(t, id)
	if len(forks) != 2 || len(forks[0].Alternatives) != 2 || forks[0].Index != 1 || len(forks[1].Alternatives) != 2 || forks[1].Index != 1 {
		t.Fatalf("forks = %+v", forks)
	}

	// Back to the first version of the message (1/2), then a new message continues it.
	if _, err := f.runner.SwitchBranch(id, forks[0].Alternatives[0]); err != nil {
		t.Fatal(err)
	}
	f.say(t, id, "and cherries?")
	f.turn(t, id)
	got = f.lastSent(t)
	if !strings.Contains(got, "apples") || !strings.Contains(got, "reply 2") || strings.Contains(got, "bananas") ||
		!strings.Contains(got, "cherries") {
		t.Fatalf("request after switching back:\n%s", got)
	}
	// Nothing was overwritten: every message and reply is still in the log.
	evs, _ := f.st.Events(id)
	var texts []string
	for _, ev := range evs {
		if ev.Type == store.EventUser || ev.Type == store.EventAssistant {
			var m struct{ Text string }
			ev.Decode(&m)
			texts = append(texts, m.Text)
		}
	}
	if len(texts) != 9 {
		t.Fatalf("messages in the log: %q", texts)
	}

	// A message that is not on the active path cannot be edited.
	if err := f.runner.Edit(id, forks[0].Alternatives[1]+1, "x"); err == nil {
		t.Fatal("an edit of a message of another branch was accepted")
	}
}

// TestRegenerateAnAgentTurn: an agent turn is regenerated from its user message with the
// environment that rode on it: the new turn reads the same first request, the environment is
// not recorded again, and the tool calls and results of the old turn are not in it.
func TestRegenerateAnAgentTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gitRepo(t, f.ws)
	f.model.On(firstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "find_files", `{"pattern":"*"}`)}})
	f.model.Default(scripted.Reply{Text: "found them"})
	id := f.session(t, f.ws, "list the files")
	f.turn(t, id)
	first := sent(f.model.Chats()[0].Request)
	if !strings.Contains(first, "<system-reminder>") {
		t.Fatalf("no environment in the first request:\n%s", first)
	}
	evs, _ := f.st.Events(id)
	var reply uint64
	for _, ev := range evs {
		if ev.Type == store.EventAssistant {
			reply = ev.Seq // the last reply of the turn
		}
	}
	if err := f.runner.Regenerate(id, reply); err != nil {
		t.Fatal(err)
	}
	f.turn(t, id)
	chats := f.model.Chats()
	if len(chats) != 4 {
		t.Fatalf("%d model calls, want 2 per turn", len(chats))
	}
	if again := sent(chats[2].Request); again != first {
		t.Fatalf("the regenerated turn's first request differs:\n%s\nwant\n%s", again, first)
	}
	evs, _ = f.st.Events(id)
	envs := 0
	for _, ev := range evs {
		if ev.Type == store.EventEnvironment {
			envs++
		}
	}
	if envs != 1 {
		t.Fatalf("%d environment events, want the first one kept", envs)
	}
}
