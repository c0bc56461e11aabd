package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestRunAsksForSubAgents: under `tofu run --approve ask` a sub-agent's call that needs
// approval is put to the run's own prompt, which names the agent; the answer read from the
// input goes to the agent's session. Allowed, the coder's edit lands; denied, it does not
// and the agent is told so. The same through a running Tofu (`tofu serve`) the run is
// forwarded to, whose socket answers only the calls it asked about.
func TestRunAsksForSubAgents(t *testing.T) {
	for _, c := range []struct {
		name, answer, file string
		denied, forward    bool
	}{
		{"allowed", "y\n", "add() { echo $(( $1 + $2 )); }\n", false, false},
		{"denied", "n\n", "add() { echo $(( $1 - $2 )); }\n", true, false},
		{"forwarded", "y\n", "add() { echo $(( $1 + $2 )); }\n", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, srv := runEnv(t)
			ws := repo(t)
			graph := `{"agents":[{"objective":"fix add","role":"coder"}]}`
			var denied bool
			srv.DefaultFunc(func(r llm.Request) scripted.Reply {
				first := ""
				for _, m := range r.Messages {
					if m.Role == llm.RoleUser {
						first = m.Content
						break
					}
				}
				switch {
				case strings.HasPrefix(first, "You are agent 0 "):
					for _, m := range r.Messages {
						if m.Role == llm.RoleTool {
							denied = strings.Contains(m.Content, "denied")
							return scripted.Reply{Text: "done with add"}
						}
					}
					return scripted.Reply{ToolCalls: []llm.ToolCall{tc("e1", "edit_files", map[string]any{"edits": []map[string]string{
						{"path": "lib/add.sh", "old_string": "$1 - $2", "new_string": "$1 + $2"}}})}}
				case strings.HasPrefix(scripted.LastUser(r), "You are the master"):
					return scripted.Reply{Text: "Synthesis: add handled."}
				}
				switch toolStep(r) {
				case 0:
					return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "sw", Name: "spawn_agents", Arguments: json.RawMessage(graph)}}}
				}
				return scripted.Reply{Text: "The team is done."}
			})
			var prompts string
			if c.forward {
				data := t.TempDir()
				inst := startServe(t, data)
				_, errOut, code := tofuAt(t, data, c.answer, "run", "--cwd", ws, "--approve", "ask", "--max-steps", "10", "fix add with a team")
				if code != 0 {
					t.Fatalf("forwarded run: exit %d\n%s", code, errOut)
				}
				inst.stop(t)
				st, prompts = openData(t, data), errOut
			} else {
				var out, errOut bytes.Buffer
				end, err := Run(context.Background(), st, RunOptions{Task: "fix add with a team", Workspace: ws, Approve: "ask",
					MaxSteps: 10, Stdin: strings.NewReader(c.answer)}, &out, &errOut)
				if err != nil || end.Reason != "done" {
					t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
				}
				prompts = errOut.String()
			}
			if !strings.Contains(prompts, "Allow edit_files for agent 0 (coder: fix add): ") || !strings.Contains(prompts, "lib/add.sh") {
				t.Fatalf("the prompt does not name the agent:\n%s", prompts)
			}
			got, _ := os.ReadFile(filepath.Join(ws, "lib/add.sh"))
			if string(got) != c.file || denied != c.denied {
				t.Fatalf("lib/add.sh %q, the agent was told denied=%v", got, denied)
			}
			// The decision is in the agent's own session, by the user.
			list, _ := st.Sessions()
			decided := 0
			for _, s := range list {
				if s.Parent == "" {
					continue
				}
				evs, _ := st.Events(s.ID)
				for _, ev := range evs {
					var ap store.Approval
					if ev.Type == store.EventApproval && ev.Decode(&ap) == nil && ap.Decision != "" && ap.By == store.ByUser {
						decided++
					}
				}
			}
			if decided != 1 {
				t.Fatalf("%d approvals decided by the user in the agents' sessions", decided)
			}
		})
	}
}
