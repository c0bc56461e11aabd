package app

import (
	"github.com/tofu-research/tofu/backend/sandbox"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
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
	if !st.Demo || !st.Reachable || st.Error != nil || st.Provider != DemoProvider || st.DefaultModel != scripted.DemoModelName {
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
	if reply.Text != scripted.EchoText("What can you do?") || reply.Provider != DemoProvider {
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

// The demo shows real work, not an echo: in its scratch workspace the scripted model reads the
// README (no question: a read inside the workspace), runs hello.sh (inside the sandbox: no
// question either; where there is none, it asks and the user allows it), and says what the
// script printed. Settings list the
// demo provider while it runs (never in the saved configuration); Stop demo ends it and
// removes the workspace.
func TestDemoTourAndStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	st, err := f.app.Models.StartDemo()
	if err != nil {
		t.Fatal(err)
	}
	ws := st.DemoWorkspace
	if ws == "" {
		t.Fatalf("no demo workspace: %+v", st)
	}
	for name := range scripted.DemoFiles {
		if _, err := os.Stat(filepath.Join(ws, name)); err != nil {
			t.Fatalf("the demo workspace lacks %s: %v", name, err)
		}
	}
	set, err := f.app.Settings.Get()
	if err != nil || set.Demo == nil || set.Demo.Name != DemoProvider {
		t.Fatalf("Settings do not list the demo provider: %+v %v", set.Demo, err)
	}
	for _, p := range set.Providers {
		if p.Name == DemoProvider {
			t.Fatalf("the demo provider is in the saved configuration: %+v", set.Providers)
		}
	}

	info, _ := f.app.Sessions.Create("")
	if err := f.app.Sessions.SetWorkspace(info.ID, ws); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Chat.Send(info.ID, "What can you do?", st.DefaultModel); err != nil {
		t.Fatal(err)
	}
	if !sandbox.Detect().Available {
		var asked store.Approval
		f.rec.waitFor(t, "the approval of the command", func() bool {
			for _, m := range f.rec.sessionMsgs(info.ID) {
				if ev, ok := m.Event.(store.Event); ok && ev.Type == store.EventApproval {
					ev.Decode(&asked)
				}
			}
			return asked.CallID != "" && asked.Decision == ""
		})
		if asked.Name != "run_command" || asked.Subject != "sh hello.sh" {
			t.Fatalf("asked = %+v", asked)
		}
		if err := f.app.Chat.Approve(info.ID, asked.CallID, "allow"); err != nil {
			t.Fatal(err)
		}
	}
	f.rec.waitFor(t, "end of turn", f.rec.ended(info.ID))
	evs := f.events(t, info.ID)
	var names []string
	var last store.AssistantMessage
	for _, ev := range evs {
		switch ev.Type {
		case store.EventToolResult:
			var r store.ToolResult
			ev.Decode(&r)
			if r.IsError {
				t.Fatalf("%s failed: %s", r.Name, r.Text)
			}
			names = append(names, r.Name)
		case store.EventAssistant:
			ev.Decode(&last)
		}
	}
	for _, ev := range evs {
		if ev.Type == store.EventApproval && sandbox.Detect().Available {
			t.Fatalf("the demo's command asked although it stays inside the sandbox: %s", ev.Data)
		}
	}
	if strings.Join(names, ",") != "read_files,run_command" {
		t.Fatalf("tool results: %v", names)
	}
	if !strings.Contains(last.Text, "Hello from the demo workspace") || !strings.Contains(last.Text, "files here: 2") || strings.Contains(last.Text, "[exit") {
		t.Fatalf("the last reply: %q", last.Text)
	}

	st = f.app.Models.StopDemo()
	if st.Demo || st.DemoWorkspace != "" || st.Provider == DemoProvider {
		t.Fatalf("after Stop demo: %+v", st)
	}
	if _, err := os.Stat(ws); !os.IsNotExist(err) {
		t.Fatalf("the demo workspace is still there: %v", err)
	}
	if set, _ := f.app.Settings.Get(); set.Demo != nil {
		t.Fatalf("Settings still list the demo: %+v", set.Demo)
	}
	f.app.Models.StopDemo() // stopping twice is harmless
}

// The demo and the paper reader: asked about a paper, the demo model says it cannot read and
// quotes the passage Tofu retrieved, cited to its real page (not the stop-button test's filler);
// a report is refused with how to get one, and nothing is saved as the paper's report.
func TestDemoInThePaperReader(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	st, err := f.app.Models.StartDemo()
	if err != nil {
		t.Fatal(err)
	}
	paper, err := f.app.Papers.Import("specter.pdf", testPaper(t, "specter_acl2020"))
	if err != nil {
		t.Fatal(err)
	}
	sid, err := f.app.Papers.Ask(paper.ID, "How are the negative examples chosen? Give a long answer.", st.DefaultModel)
	if err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "the answer", f.rec.ended(sid))
	var reply store.AssistantMessage
	for _, ev := range f.events(t, sid) {
		if ev.Type == store.EventAssistant {
			ev.Decode(&reply)
		}
	}
	cited := regexp.MustCompile(`begins on page (\d+):[\s\S]*\[p\. (\d+)\]`).FindStringSubmatch(reply.Text)
	if !strings.Contains(reply.Text, "cannot read papers") || strings.Contains(reply.Text, "keeps talking") || cited == nil || cited[1] != cited[2] {
		t.Fatalf("the demo's answer in the reader:\n%s", reply.Text)
	}
	if _, err := f.app.Papers.Report(paper.ID, st.DefaultModel); err == nil || !strings.Contains(err.Error(), "cannot write a report") {
		t.Fatalf("a report with the demo model: %v", err)
	}
	if view, _ := f.app.Papers.Open(paper.ID); view.Report != "" {
		t.Fatalf("a report was saved: %q", view.Report)
	}
}
