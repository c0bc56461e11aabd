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
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/store"
)

// TestDeskEndToEnd: My Day and the Schedule panel in headless Chromium against `tofu serve`
// (frontend/e2e/desk.e2e.mjs). Two conversations of today are in the log, an hourly job last
// due two hours before the start, and My Day's daily time set to two minutes before the start
// (its job due then: Tofu was closed). At start the missed report is written (late) and My
// Day says so; the report shows their figures and TODO; a new time set in the panel is saved
// in the settings and moves the job; the panel reports the four missed runs, and a job added
// in the form is stored.
func TestDeskEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel())
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

	// My Day's time, two minutes ago, missed: the job as the last run of Tofu left it.
	missedAt := time.Now().Truncate(time.Minute).Add(-2 * time.Minute)
	at := missedAt.Format("15:04")
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
	os.MkdirAll(cfgDir, 0o755)
	if err := os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"myday_at": "`+at+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.PutJSON("schedule/myday", schedule.Job{ID: "myday", Name: "My Day", Kind: schedule.KindMyDay, CatchUp: true,
		Cron: schedule.DailyCron(missedAt.Hour(), missedAt.Minute()), Created: missedAt.Add(-48 * time.Hour), Next: missedAt}); err != nil {
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
	shot2 := shotPath(root, "schedule-e2e.png")
	shot3 := shotPath(root, "myday-time-e2e.png")
	runBrowser(t, root, url, "desk.e2e.mjs", "myday-e2e.png", "TOFU_E2E_SHOT2="+shot2, "TOFU_E2E_SHOT3="+shot3, "TOFU_E2E_MYDAY_AT="+at)
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}

	var added bool
	missed := map[string]int{}
	var mine schedule.Job
	st.ListJSON("schedule/", func(_ string, raw json.RawMessage) error {
		var j schedule.Job
		json.Unmarshal(raw, &j)
		added = added || (j.Prompt == "Summarize the new papers on retrieval" && j.Cron == "30 9 * * 1-5")
		for _, r := range j.Runs {
			missed[j.ID] += r.Missed
		}
		if j.ID == "myday" {
			mine = j
		}
		return nil
	})
	if !added || missed["j1"] != 3 || missed["myday"] != 1 {
		t.Fatalf("added %v, missed %v", added, missed)
	}
	// The missed day's report was written at start, late; the new time moved the job.
	if n := len(mine.Runs); n != 2 || !mine.Runs[1].Late || mine.Runs[1].Outcome != schedule.OutcomeOK || mine.Cron != "30 7 * * *" {
		t.Fatalf("My Day's job: %+v", mine)
	}
	var report struct{ Date string }
	if ok, _ := st.GetJSON("myday/"+missedAt.Format(time.DateOnly), &report); !ok {
		t.Fatalf("no report of %s", missedAt.Format(time.DateOnly))
	}
	cfg, _ := os.ReadFile(filepath.Join(cfgDir, "config.json"))
	if !strings.Contains(string(cfg), `"myday_at": "07:30"`) {
		t.Fatalf("config.json: %s", cfg)
	}
}
