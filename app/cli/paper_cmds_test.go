package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/shareddata"
)

// tofu paper add, list and ask on the library the window uses: without a running Tofu they
// open it themselves; beside `tofu serve` they are forwarded to it, and the answer streams
// the same. The answer's passages are named on stderr, and a page it cites that none of them
// is on is said.
func TestPaperCommands(t *testing.T) {
	srv := llmtestServer(t)
	firstPage := regexp.MustCompile(`<passage id=\d+ section="[^"]*">\n\[page (\d+)\]`)
	srv.On(func(req llm.Request) bool { return strings.Contains(scripted.LastUser(req), "<passage") }).
		ReplyFunc(func(req llm.Request) scripted.Reply {
			m := firstPage.FindStringSubmatch(scripted.LastUser(req))
			if m == nil {
				return scripted.Reply{Text: "The passages do not say."}
			}
			return scripted.Reply{Text: fmt.Sprintf("Masks in the loss handle missing modalities [p. %s]. See also [p. 99].", m[1])}
		})
	data := t.TempDir()
	pdf, _ := filepath.Abs("testdata/multivae_joss.pdf")

	out, errOut, code := tofuAt(t, data, "", "paper", "add", pdf)
	id := regexp.MustCompile(`^[0-9a-f]{16}\b`).FindString(out)
	if code != 0 || !strings.Contains(out, "MultiVae") || len(id) < 16 {
		t.Fatalf("paper add: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = tofuAt(t, data, "", "paper", "add", "no-such-paper.pdf")
	if code == 0 || !strings.Contains(errOut, "is not a file, an arXiv id") {
		t.Fatalf("paper add of nothing: exit %d\n%s", code, errOut)
	}
	// Downloads need web access, which is off: a clear error, and no network is tried.
	_, errOut, code = tofuAt(t, data, "", "paper", "add", "2401.12345")
	if code == 0 || !strings.Contains(errOut, "web access is off") {
		t.Fatalf("paper add of an arXiv id with web access off: exit %d\n%s", code, errOut)
	}
	out, errOut, code = tofuAt(t, data, "", "paper", "list")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "MultiVae") {
		t.Fatalf("paper list: exit %d\n%s%s", code, out, errOut)
	}
	ask := func(q string) (string, string) {
		out, errOut, code := tofuAt(t, data, "", "paper", "ask", id[:8], q)
		if code != 0 || !strings.Contains(out, "Masks in the loss handle missing modalities [p. ") {
			t.Fatalf("paper ask: exit %d\n%s%s", code, out, errOut)
		}
		if !strings.Contains(errOut, "[passages: p. ") || !strings.Contains(errOut, "[not in the passages given: cited page 99]") || !strings.Contains(errOut, "(conversation ") {
			t.Fatalf("paper ask's notes:\n%s", errOut)
		}
		return out, errOut
	}
	localOut, _ := ask("How does MultiVae handle missing modalities?")

	inst := startServe(t, data)
	out, errOut, code = tofuAt(t, data, "", "paper", "list")
	if code != 0 || !strings.Contains(out, id) {
		t.Fatalf("paper list beside a running Tofu: exit %d\n%s%s", code, out, errOut)
	}
	second := shareddata.Require(t, "papers", "elegantpaper_en", "paper.pdf")
	out, errOut, code = tofuAt(t, data, "", "paper", "add", second)
	if code != 0 || !strings.Contains(out, "ElegantPaper") {
		t.Fatalf("paper add beside a running Tofu: exit %d\n%s%s", code, out, errOut)
	}
	forwardedOut, errOut := ask("How does MultiVae handle missing modalities?")
	if forwardedOut != localOut {
		t.Fatalf("the forwarded answer differs:\n%s\n%s", forwardedOut, errOut)
	}
	inst.stop(t)
	out, _, _ = tofuAt(t, data, "", "paper", "list")
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "ElegantPaper") {
		t.Fatalf("the library after the forwarded add:\n%s", out)
	}
	// Both answers are the paper's one Q&A conversation.
	if n := len(srv.Chats()); n != 2 {
		t.Fatalf("%d model calls", n)
	}
}
