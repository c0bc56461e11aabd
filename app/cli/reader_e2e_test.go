package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/shareddata"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/store"
)

// TestReaderEndToEnd drives the paper reader in headless Chromium (frontend/e2e/reader.e2e.mjs)
// against `tofu serve` and a scripted model that answers with a citation of the first page
// retrieval gave it. Like TestEndToEnd it runs when TOFU_E2E=1; the PDF is $TOFU_E2E_PDF or the
// ICML paper of the shared evaluation set.
func TestReaderEndToEnd(t *testing.T) {
	if os.Getenv("TOFU_E2E") == "" {
		t.Skip("set TOFU_E2E=1 (make test-e2e) to run the browser test")
	}
	root, _ := filepath.Abs("../..")
	dist := filepath.Join(root, "frontend", "dist")
	if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
		t.Fatalf("the front end is not built (run `make frontend`): %v", err)
	}
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

	model := llmtest.New(t, llmtest.DemoModel())
	pages := regexp.MustCompile(`<passage id=\d+ pages="pp?\. (\d+)`)
	model.On(func(req llm.Request) bool { return strings.Contains(llmtest.LastUser(req), "<passage") }).
		ReplyFunc(func(req llm.Request) llmtest.Reply {
			m := pages.FindStringSubmatch(llmtest.LastUser(req))
			if m == nil {
				return llmtest.Reply{Text: "The passages do not say."}
			}
			return llmtest.Reply{Text: fmt.Sprintf("The paper answers this on the cited page [p. %s].", m[1])}
		})
	isolate(t, model.URL)

	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, st, os.DirFS(dist), 0, pw) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line[strings.Index(line, "http"):])

	shot := filepath.Join(root, "build", "bin", "reader-e2e.png")
	os.MkdirAll(filepath.Dir(shot), 0o755)
	cmd := exec.Command("node", "e2e/reader.e2e.mjs")
	cmd.Dir = filepath.Join(root, "frontend")
	cmd.Env = append(os.Environ(), "TOFU_URL="+url, "TOFU_E2E_PDF="+pdf, "TOFU_E2E_SHOT="+shot)
	if question != "" {
		cmd.Env = append(cmd.Env, "TOFU_E2E_QUESTION="+question)
	}
	out, err := cmd.CombinedOutput()
	t.Logf("reader.e2e.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("browser test failed: %v", err)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
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
