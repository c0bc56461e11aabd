package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/shareddata"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestReaderEndToEnd drives the paper reader in headless Chromium (frontend/e2e/reader.e2e.mjs)
// against `tofu serve` and a scripted model that answers with a citation of the first page
// retrieval gave it. Like TestEndToEnd it runs when TOFU_E2E=1; the PDF is $TOFU_E2E_PDF or the
// ICML paper of the shared evaluation set.
func TestReaderEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	pdf := os.Getenv("TOFU_E2E_PDF")
	question := ""
	if pdf == "" {
		pdf = shareddata.Path("papers", "icml2024_altmeyer_agi_claims", "paper.pdf")
	}
	if pdf == "" {
		// Without the shared evaluation set: the small paper that travels with the tests.
		pdf, _ = filepath.Abs("testdata/multivae_joss.pdf")
		question = "How does MultiVae handle incomplete datasets with missing modalities?"
	}

	model := scripted.New(t, scripted.DemoModel())
	pages := regexp.MustCompile(`<passage id=\d+ section="[^"]*">\n\[page (\d+)\]`)
	model.On(func(req llm.Request) bool { return strings.Contains(scripted.LastUser(req), "<passage") }).
		ReplyFunc(func(req llm.Request) scripted.Reply {
			m := pages.FindStringSubmatch(scripted.LastUser(req))
			if m == nil {
				return scripted.Reply{Text: "The passages do not say."}
			}
			return scripted.Reply{Text: fmt.Sprintf("The paper answers this on the cited page [p. %s].", m[1])}
		})
	isolate(t, model.URL)

	st, url, stop := serveE2E(t, root)

	env := []string{"TOFU_E2E_PDF=" + pdf}
	if question != "" {
		env = append(env, "TOFU_E2E_QUESTION="+question)
	}
	runBrowser(t, root, url, "reader.e2e.mjs", "reader-e2e.png", env...)
	stop()
	// The answer's grounding is in the log: a Q&A session linked to the paper, with a retrieval.
	list, _ := st.Sessions()
	if len(list) != 1 || list[0].Paper == "" || list[0].Purpose != "qa" {
		t.Fatalf("sessions: %+v", list)
	}
	evs, _ := st.Events(list[0].ID)
	var kinds []string
	for _, ev := range evs {
		kinds = append(kinds, string(ev.Type))
	}
	if got := strings.Join(kinds, ","); got != "user,retrieval,assistant,usage,model_call" {
		t.Fatalf("recorded events: %s", got)
	}
}
