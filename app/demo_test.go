package app

import (
	"net"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/store"
)

// "Try the demo" with Ollama unreachable: the built-in scripted model answers a turn through
// the real gateway, for this run only (config.json never names it), until Settings are saved.
func TestStartDemoAnswersWithoutOllama(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	f.setBaseURL(t, closed)
	if st := f.app.Models.Status(); st.Error == nil || st.Error.Kind != llm.ErrUnreachable || st.Demo {
		t.Fatalf("before the demo: %+v", st)
	}

	st, err := f.app.Models.StartDemo()
	if err != nil {
		t.Fatal(err)
	}
	if !st.Demo || !st.Reachable || st.Error != nil || st.Provider != DemoProvider || st.DefaultModel != llmtest.DemoModelName {
		t.Fatalf("demo status = %+v (error %+v)", st, st.Error)
	}
	info, err := f.app.Sessions.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.app.Chat.Send(info.ID, "What can you do?", st.DefaultModel); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "end of stream", f.rec.ended(info.ID))
	evs := f.events(t, info.ID)
	if got := types(evs); got != "user,assistant,usage,model_call" {
		t.Fatalf("events = %s", got)
	}
	var reply store.AssistantMessage
	evs[1].Decode(&reply)
	if reply.Text != llmtest.EchoText("What can you do?") || reply.Provider != DemoProvider {
		t.Fatalf("reply = %+v", reply)
	}

	set, err := f.app.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.Providers {
		if p.Name == DemoProvider {
			t.Fatalf("the demo provider was saved: %+v", set.Providers)
		}
	}
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	if st := f.app.Models.Status(); st.Demo || st.Error == nil || st.Error.Kind != llm.ErrUnreachable {
		t.Fatalf("after saving Settings the demo still runs: %+v", st)
	}
}
