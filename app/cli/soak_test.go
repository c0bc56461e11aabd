package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestFaultSoak runs scripted `tofu run` tasks over each wire format while the scripted model
// server injects every fault kind it has into about 30% of the model calls, 1 to 3 times in a
// row. A task runs a command that appends one line to a log (so a tool run twice shows), then
// answers with a text of its own. It reports, per format: tasks, finished (ended done), exact
// (the answer and the log line as scripted), duplicates (log lines beyond one per task),
// requests sent to the model, and wall time. It takes minutes (real Retry-After waits): run
// it with TOFU_SOAK=1 (TOFU_SOAK_TASKS sets the tasks per format, default 20).
func TestFaultSoak(t *testing.T) {
	if os.Getenv("TOFU_SOAK") == "" {
		t.Skip("set TOFU_SOAK=1 to run the fault soak (minutes)")
	}
	tasks := 20
	fmt.Sscan(os.Getenv("TOFU_SOAK_TASKS"), &tasks)
	for fi, format := range []string{"ollama", "openai", "anthropic"} {
		st, srv := runEnv(t)
		if format != "ollama" {
			cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "tofu")
			os.MkdirAll(cfgDir, 0o700)
			base := srv.URL
			if format == "openai" {
				base += "/v1"
			}
			cfg, _ := json.Marshal(map[string]any{
				"providers": []map[string]any{{"name": format, "type": format, "base_url": base}},
				"models":    map[string]any{"main": scripted.DemoModelName},
			})
			os.WriteFile(filepath.Join(cfgDir, "config.json"), cfg, 0o600)
		}
		s := newSoak(uint64(fi))
		srv.DefaultFunc(s.reply)
		ws := t.TempDir()
		var finished, exact, voided int
		seen := map[string]bool{}
		start := time.Now()
		for i := range tasks {
			var out, errOut bytes.Buffer
			end, err := Run(context.Background(), st, RunOptions{Task: fmt.Sprintf("soak task %d", i), Workspace: ws, Approve: "all", MaxSteps: 12}, &out, &errOut)
			if err != nil {
				t.Errorf("%s task %d: %v", format, i, err)
				continue
			}
			if end.Reason == store.EndDone {
				finished++
			}
			// Exact: the conversation's answer is the scripted text (the log's last reply; a
			// terminal also shows the part of a reply voided by a retry, counted apart).
			if end.Reason == store.EndDone && lastReply(t, st, seen) == s.answer(i) {
				exact++
				if strings.TrimSpace(out.String()) != s.answer(i) {
					voided++
				}
			} else {
				t.Logf("%s task %d (faults %v): %s, output %q\n%s", format, i, s.faultsOf(i), end.Reason, out.String(), errOut.String())
			}
		}
		wall := time.Since(start)
		log, _ := os.ReadFile(filepath.Join(ws, "runs.log"))
		lines := strings.Count(string(log), "\n")
		missing := 0
		for i := range tasks {
			if !strings.Contains(string(log), fmt.Sprintf("ran-%d\n", i)) {
				missing++
			}
		}
		sent := 0
		list, _ := st.Sessions()
		for _, info := range list {
			evs, _ := st.Events(info.ID)
			for _, ev := range evs {
				var rep router.CallReport
				if ev.Type == store.EventModelCall && ev.Decode(&rep) == nil {
					sent += rep.Sent()
				}
			}
		}
		t.Logf("%-9s tasks %d, finished %d, exact %d, duplicates %d, missing %d, faulted tasks %d (%d faults: %s), requests %d, wall %.1f s (%.2f s per task); stdout showed a voided partial reply in %d",
			format, tasks, finished, exact, lines-(tasks-missing), missing, s.faultedCalls(), s.faults(), s.kinds(), sent, wall.Seconds(), wall.Seconds()/float64(tasks), voided)
		if finished != tasks || exact != tasks || lines != tasks {
			t.Errorf("%s: %d tasks, %d finished, %d exact, %d log lines", format, tasks, finished, exact, lines)
		}
	}
}

// lastReply is the text of the last assistant event of the session not in seen (the task's).
func lastReply(t *testing.T, st *store.Store, seen map[string]bool) string {
	t.Helper()
	list, _ := st.Sessions()
	id := ""
	for _, info := range list {
		if !seen[info.ID] {
			id = info.ID
			seen[id] = true
		}
	}
	evs, _ := st.Events(id)
	text := ""
	for _, ev := range evs {
		var a store.AssistantMessage
		if ev.Type == store.EventAssistant && ev.Decode(&a) == nil {
			text = a.Text
		}
	}
	return text
}

// soak scripts the model of TestFaultSoak: per task and stage (before or after the command
// ran), the first requests meet the faults drawn for them, then the good reply comes.
type soak struct {
	mu     sync.Mutex
	rng    *rand.Rand
	plan   map[[2]int][]scripted.Reply // faults per (task, stage), consumed in order
	drawn  map[[2]int]bool
	byTask map[int][]string
	count  map[scripted.Fault]int
}

func newSoak(seed uint64) *soak {
	return &soak{rng: rand.New(rand.NewPCG(seed, 21)), plan: map[[2]int][]scripted.Reply{}, drawn: map[[2]int]bool{},
		byTask: map[int][]string{}, count: map[scripted.Fault]int{}}
}

func (s *soak) answer(task int) string {
	return fmt.Sprintf("Task %d done: the log has ran-%d. {braces} ß 🙂 ``", task, task)
}

func (s *soak) command(task int) llm.ToolCall {
	return tc(fmt.Sprintf("c%d", task), "run_command", map[string]any{"command": fmt.Sprintf("printf 'ran-%%s\\n' %d | tee -a runs.log", task)})
}

func (s *soak) reply(r llm.Request) scripted.Reply {
	var task int
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			if _, err := fmt.Sscanf(m.Content, "soak task %d", &task); err == nil {
				break
			}
		}
	}
	stage := 0
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool && strings.Contains(m.Content, fmt.Sprintf("ran-%d\n", task)) {
			stage = 1
		}
	}
	good := scripted.Reply{ToolCalls: []llm.ToolCall{s.command(task)}}
	if stage == 1 {
		good = scripted.Reply{Text: s.answer(task)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := [2]int{task, stage}
	if !s.drawn[key] {
		s.drawn[key] = true
		if s.rng.Float64() < 0.3 {
			for range 1 + s.rng.IntN(3) {
				f := scripted.Faults[s.rng.IntN(len(scripted.Faults))]
				if stage == 1 && (f == scripted.FaultBadToolJSON || f == scripted.FaultToolAsText) {
					// A call printed after the command ran is a model running it again (read
					// back, it runs): not a fault of the answer stage.
					f = scripted.FaultServerError
				}
				rep := scripted.Reply{Fault: f, Text: good.Text, ToolCalls: good.ToolCalls, After: 1 + s.rng.IntN(3),
					RetryAfter: time.Duration(1+s.rng.IntN(3)) * time.Second, Delay: time.Duration(1+s.rng.IntN(2)) * time.Second}
				if f == scripted.FaultBadToolJSON || f == scripted.FaultToolAsText {
					rep.Text, rep.ToolCalls = "", []llm.ToolCall{s.command(task)} // faults of a call
				}
				s.plan[key] = append(s.plan[key], rep)
				s.byTask[task] = append(s.byTask[task], string(f))
				s.count[f]++
			}
		}
	}
	if p := s.plan[key]; len(p) > 0 {
		s.plan[key] = p[1:]
		return p[0]
	}
	return good
}

func (s *soak) faultsOf(task int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byTask[task]
}

func (s *soak) faultedCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, fs := range s.byTask {
		if len(fs) > 0 {
			n++
		}
	}
	return n
}

func (s *soak) faults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.count {
		n += c
	}
	return n
}

func (s *soak) kinds() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	for _, f := range scripted.Faults {
		if s.count[f] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", f, s.count[f]))
		}
	}
	return strings.Join(parts, ", ")
}
