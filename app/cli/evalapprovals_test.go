package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEvalApprovals replays two small trajectories (mini-swe-agent and SWE-agent) through the
// default mode: inside the sandbox the project's tests, edits and /tmp scripts run unasked;
// the network, a write to the home and a secret ask; deleting the workspace is denied; a reply
// with two bash blocks and an editor call are not shell commands.
func TestEvalApprovals(t *testing.T) {
	t.Parallel()
	out := execute(t, newEvalApprovalsCmd(), "--json", "testdata/approvals")
	var rep struct {
		Commands   int            `json:"commands"`
		Asked      int            `json:"asked"`
		AskedShare float64        `json:"asked_share"`
		Denied     int            `json:"denied"`
		Reasons    map[string]int `json:"reasons"`
		Asking     []struct {
			Command, Action, Reason, Detail string
		} `json:"asking"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Commands != 9 || rep.Asked != 3 || rep.Denied != 1 || rep.AskedShare != 3.0/9 {
		t.Fatalf("commands %d, asked %d (%.3f), denied %d", rep.Commands, rep.Asked, rep.AskedShare, rep.Denied)
	}
	want := map[string]int{
		"network: asked at run time":                         1,
		"crosses the sandbox: writes outside the workspace":  1,
		"crosses the sandbox: reads secrets":                 1,
		"… would recursively change or delete the workspace": 1,
	}
	if len(rep.Reasons) != len(want) {
		t.Fatalf("reasons %v", rep.Reasons)
	}
	for k, n := range want {
		if rep.Reasons[k] != n {
			t.Errorf("reason %q: %d, want %d (all: %v)", k, rep.Reasons[k], n, rep.Reasons)
		}
	}
	var asked []string
	for _, a := range rep.Asking {
		asked = append(asked, a.Command)
		if strings.Contains(a.Detail, "tofu-approvals-") {
			t.Errorf("a reason names the scratch folder instead of the trajectory's paths: %s", a.Detail)
		}
	}
	if got := strings.Join(asked, " | "); got != "pip install -e . | echo 'export X=1' >> ~/.bashrc | cat /root/.ssh/id_rsa | rm -rf /testbed" {
		t.Errorf("asking commands: %s", got)
	}
	// Commands unconfined: the static policy asks about nearly everything.
	out = execute(t, newEvalApprovalsCmd(), "--json", "--commands", "unconfined", "testdata/approvals")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Asked < 7 {
		t.Fatalf("unconfined: %v, asked %d", err, rep.Asked)
	}
	if text := execute(t, newEvalApprovalsCmd(), "testdata/approvals"); !strings.Contains(text, "3 of 9 commands ask (33.3%), 1 denied") {
		t.Errorf("text report:\n%s", text)
	}
}
