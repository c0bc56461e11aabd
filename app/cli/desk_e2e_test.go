package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/store"
)

// TestDeskEndToEnd: My Day and the Schedule panel in headless Chromium against `tofu serve`
// (frontend/e2e/desk.e2e.mjs). Two conversations of today are in the log, and an hourly job
// last due two hours before the start: the report shows their figures and TODO, the panel
// reports the three missed runs, and a job added in the form is stored.
func TestDeskEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := llmtest.New(t, llmtest.DemoModel())
	isolate(t, model.URL)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	seed := func(title string, entries ...store.Entry) {
		s, err := st.CreateSession(title)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendBatch(s.ID, entries...); err != nil {
			t.Fatal(err)
		}
	}
	user := func(s string) store.Entry {
		return store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: s}}
	}
	reply := func(s string, calls int) store.Entry {
		a := store.AssistantMessage{Text: s}
		for range calls {
			a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: "c", Name: "run_command", Arguments: json.RawMessage(`{}`)})
		}
		return store.Entry{Type: store.EventAssistant, Payload: a}
	}
	usage := func(m string, in, out int, cost float64) store.Entry {
		return store.Entry{Type: store.EventUsage, Payload: llm.Usage{Model: m, InputTokens: in, OutputTokens: out, CostUSD: cost}}
	}
	end := store.Entry{Type: store.EventTurnEnd, Payload: store.TurnEnd{Reason: store.EndDone}}
	seed("Parser fix", user("Fix the CSV parser.\nTODO: add a test for quoted commas"), reply("", 2), usage("qwen3:8b", 18200, 640, 0),
		reply("Fixed: quoted fields are read whole.\n- [ ] release 1.2", 0), usage("qwen3:8b", 19100, 210, 0), end)
	seed("Benchmarks", user("Run the retrieval benchmarks"), reply("", 1), usage("openai/gpt-5-mini", 4100, 300, 0.0125),
		store.Entry{Type: store.EventTurnEnd, Payload: store.TurnEnd{Reason: store.EndMaxSteps}})
	due := time.Now().Truncate(time.Hour).Add(-2 * time.Hour)
	if err := st.PutJSON("schedule/j1", schedule.Job{ID: "j1", Name: "Hourly status", Kind: schedule.KindPrompt, Cron: "0 * * * *",
		Prompt: "What changed in the repository?", Created: due.Add(-time.Hour), Next: due}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, st, os.DirFS(filepath.Join(root, "frontend", "dist")), 0, pw) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line[strings.Index(line, "http"):])
	shot2 := filepath.Join(root, "build", "bin", "schedule-e2e.png")
	runBrowser(t, root, url, "desk.e2e.mjs", "myday-e2e.png", "TOFU_E2E_SHOT2="+shot2)
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}

	var added bool
	var missed int
	st.ListJSON("schedule/", func(_ string, raw json.RawMessage) error {
		var j schedule.Job
		json.Unmarshal(raw, &j)
		added = added || (j.Prompt == "Summarize the new papers on retrieval" && j.Cron == "30 9 * * 1-5")
		for _, r := range j.Runs {
			missed += r.Missed
		}
		return nil
	})
	if !added || missed != 3 {
		t.Fatalf("added %v, missed %d", added, missed)
	}
}
