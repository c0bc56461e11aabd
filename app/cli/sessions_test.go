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
