package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/shareddata"
	"github.com/tofu-research/tofu/backend/store"
)

// TestRunDrivesTodoMVC: `tofu run` completes the TodoMVC acceptance scenario in real
// Chromium with a scripted model that reads refs out of the browser's replies (script rules
// matching the last tool result and using its captures): open the app, add three todos in one
// batch, complete the second, show the active ones.
func TestRunDrivesTodoMVC(t *testing.T) {
	for _, app := range []string{"react", "vue"} {
		t.Run(app, func(t *testing.T) {
			srv := httptest.NewServer(http.FileServer(http.Dir(shareddata.Require(t, "web", "todomvc", app))))
			defer srv.Close()
			st, model := runEnv(t)
			script := todoScript(srv.URL + "/index.html")
			sc, err := scripted.LoadScript(strings.NewReader(script))
			if err != nil {
				t.Fatal(err)
			}
			model.Load(sc)
			var out, errOut bytes.Buffer
			end, err := Run(context.Background(), st, RunOptions{Task: "Add three todos, complete the second, show the active ones",
				Workspace: t.TempDir(), Approve: "safe"}, &out, &errOut)
			if err != nil || end.Reason != "done" {
				t.Fatalf("end %+v, %v\n%s\n%s", end, err, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), "Done: two todos are active.") {
				t.Fatalf("output:\n%s", out.String())
			}
			evs, err := st.Events(onlySession(t, st))
			if err != nil {
				t.Fatal(err)
			}
			var last string
			for _, ev := range evs {
				var r store.ToolResult
				if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
					if r.IsError {
						t.Fatalf("%s failed: %s", r.Name, r.Text)
					}
					last = r.Text
				}
			}
			// The filter hid the completed todo (a full snapshot or a diff that removes it).
			shown := ""
			for _, line := range strings.Split(last, "\n") {
				if !strings.HasPrefix(line, "- - [") {
					shown += line + "\n"
				}
			}
			if !strings.Contains(last, "#/active") || !strings.Contains(shown, "Write report") || strings.Contains(shown, "Walk the dog") {
				t.Fatalf("the last browser reply:\n%s", last)
			}
		})
	}
}

// todoScript is the scripted model that completes the TodoMVC scenario at url, reading the
// refs it needs out of the browser's replies.
func todoScript(url string) string {
	return fmt.Sprintf(`[
			  {"match": {"tool_result": "#/active"}, "times": 1,
			   "reply": {"text": "Done: two todos are active."}},
			  {"match": {"tool_result": "(?s)\\[(?P<toggle>e\\d+) checkbox[^\\]]*\\] Walk the dog.*\\[(?P<active>e\\d+) link \"Active\"\\]"}, "times": 1,
			   "reply": {"tool_calls": [{"id": "c3", "name": "browser_act", "arguments": {"actions": [
			     {"do": "click", "ref": "${toggle}"}, {"do": "click", "ref": "${active}"}]}}]}},
			  {"match": {"tool_result": "\\[(e\\d+) textbox \"(?:New Todo Input|What needs to be done\\?)\""}, "times": 1,
			   "reply": {"tool_calls": [{"id": "c2", "name": "browser_act", "arguments": {"actions": [
			     {"do": "type", "ref": "${1}", "text": "Buy milk", "submit": true},
			     {"do": "type", "ref": "${1}", "text": "Walk the dog", "submit": true},
			     {"do": "type", "ref": "${1}", "text": "Write report", "submit": true}]}}]}},
			  {"match": {"user_contains": "todo"}, "times": 1,
			   "reply": {"tool_calls": [{"id": "c1", "name": "browser_navigate", "arguments": {"url": %q}}]}}]`, url)
}
