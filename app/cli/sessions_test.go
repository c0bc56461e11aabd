package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/store"
)

// sessionsData makes a data directory (XDG_DATA_HOME) holding one session with entries.
func sessionsData(t *testing.T, title string, entries ...store.Entry) store.SessionInfo {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir, err := store.DataDir()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, _ := st.CreateSession(title)
	for _, e := range entries {
		if _, err := st.Append(info.ID, e.Type, e.Payload); err != nil {
			t.Fatal(err)
		}
	}
	return info
}

// execute runs a command of tofu's with args and returns what it printed; an error fails t.
func execute(t *testing.T, cmd *cobra.Command, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// tofu sessions search finds a message in any language, as text and as JSON.
func TestSessionsSearch(t *testing.T) {
	info := sessionsData(t, "Compaction questions",
		store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: "How does the value log get collected?"}},
		store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: "数据库压缩怎么配置？"}})
	run := func(args ...string) string {
		t.Helper()
		return execute(t, newSessionsCmd(), append([]string{"search"}, args...)...)
	}
	if out := run("数据库压缩"); !strings.Contains(out, info.ID+"  #2") || !strings.Contains(out, "数据库压缩怎么配置") {
		t.Fatalf("text output:\n%s", out)
	}
	var res struct {
		Matches []history.Match `json:"matches"`
	}
	if err := json.Unmarshal([]byte(run("--json", "value", "log")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 || res.Matches[0].Seq != 1 || res.Matches[0].Title != "Compaction questions" {
		t.Fatalf("json: %+v", res)
	}
	if out := run("nothing-like-this"); !strings.Contains(out, "No message matches.") {
		t.Fatalf("no match: %s", out)
	}
}

// tofu sessions list shows the conversations the sidebar shows, with the ids the other
// commands take; a paper's internal sessions and untouched stubs are not conversations.
func TestSessionsList(t *testing.T) {
	info := sessionsData(t, "Compaction questions",
		store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: "How does the value log get collected?"}})
	dir, _ := store.DataDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	paper, _ := st.CreateSession("Q&A")
	if _, err := st.UpdateSession(paper.ID, func(i *store.SessionInfo) { i.Paper, i.Purpose = "p1", "qa" }); err != nil {
		t.Fatal(err)
	}
	stub, _ := st.CreateSession("")
	st.Close()

	out := execute(t, newSessionsCmd(), "list")
	if !strings.Contains(out, info.ID) || !strings.Contains(out, "Compaction questions") || !strings.Contains(out, "1 events") {
		t.Fatalf("text output lacks the conversation:\n%s", out)
	}
	if strings.Contains(out, paper.ID) || strings.Contains(out, stub.ID) {
		t.Fatalf("a paper's session or a stub is listed:\n%s", out)
	}
	var res struct {
		Sessions []store.SessionInfo `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(execute(t, newSessionsCmd(), "list", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || res.Sessions[0].ID != info.ID || res.Sessions[0].Events != 1 {
		t.Fatalf("json: %+v", res)
	}
}

// With no conversation, list says how to start one (and JSON is an empty list, not null).
func TestSessionsListEmpty(t *testing.T) {
	sessionsData(t, "")
	if out := execute(t, newSessionsCmd(), "list"); !strings.Contains(out, "No conversations yet") {
		t.Fatalf("empty list: %q", out)
	}
	if out := execute(t, newSessionsCmd(), "list", "--json"); !strings.Contains(out, `"sessions": []`) {
		t.Fatalf("empty json: %q", out)
	}
}
