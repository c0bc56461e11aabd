package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// killSteps is how many commands a session of the kill test runs.
const killSteps = 3

// killFigures sums what the kill test saw over its runs.
type killFigures struct {
	runs, kills, doubleRuns, lostEvents      int
	orphans, unfinished, unended, printedEvs int
	leftCopies                               int // output copies left in the temporary directory
	failedRuns                               int // runs not killed that did not exit 0
}

func (f *killFigures) add(o killFigures) {
	f.runs += o.runs
	f.kills += o.kills
	f.doubleRuns += o.doubleRuns
	f.lostEvents += o.lostEvents
	f.orphans += o.orphans
	f.unfinished += o.unfinished
	f.unended += o.unended
	f.printedEvs += o.printedEvs
	f.leftCopies += o.leftCopies
	f.failedRuns += o.failedRuns
}

// TestKillAndContinue SIGKILLs real `tofu run` processes at random points, many times, and
// continues each session until it ends. Every session runs commands that append their id to a
// counter file and leave a long child behind: Tofu kills it when the command ends, and when
// Tofu is killed instead it outlives the command until a later Tofu kills its group. Whatever the kill point: no command runs twice, every event a killed
// process printed with --json (so was durable) is in the log, every session ends normally,
// no recorded process group is left running, and no output copy is left behind.
//
// TOFU_KILL_RUNS sets the number of sessions (default 40), TOFU_KILL_SEED the seed (default 1:
// the kill points are the same choices on every run; the timing around them is not, and the
// assertions hold for every point).
func TestKillAndContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns many processes")
	}
	runs := envInt(t, "TOFU_KILL_RUNS", 40)
	seed := uint64(envInt(t, "TOFU_KILL_SEED", 1))
	srv := scripted.New(t, scripted.DemoModel())
	isolate(t, srv.URL)
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		i := toolStep(r)
		if i >= killSteps {
			return scripted.Reply{Text: "All commands ran."}
		}
		id := fmt.Sprintf("c%d", i)
		return scripted.Reply{ToolCalls: []llm.ToolCall{tc(id, "run_command", map[string]any{
			"command": "echo " + id + " >> counter; sleep 60 & sleep 0.05"})}}
	})
	var total killFigures
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 6) // several sessions at once: most of a run is waiting
	for i := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f := killRun(t, rand.New(rand.NewPCG(seed, uint64(i))))
			mu.Lock()
			total.add(f)
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("kill test: %d runs, %d kills, %d unfinished calls answered, %d events printed by killed processes; "+
		"%d double runs, %d lost events, %d orphans, %d sessions not ended, %d output copies left, %d failed runs",
		total.runs, total.kills, total.unfinished, total.printedEvs, total.doubleRuns, total.lostEvents, total.orphans,
		total.unended, total.leftCopies, total.failedRuns)
	if total.doubleRuns+total.lostEvents+total.orphans+total.unended+total.leftCopies+total.failedRuns > 0 {
		t.Fatal("the kill test found the failures above")
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// killRun runs one session to its end through kills and continues, and checks it.
func killRun(t *testing.T, rng *rand.Rand) killFigures {
	f := killFigures{runs: 1}
	ws, data, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	var printed []store.Event
	session := ""
	for attempt := 0; ; attempt++ {
		if attempt == 12 {
			t.Errorf("session %s did not end after %d attempts", session, attempt)
			f.unended++
			return f
		}
		args := []string{"run", "--cwd", ws, "--approve", "all", "--json"}
		if session == "" {
			args = append(args, "run the commands")
		} else {
			args = append(args, "--continue", session)
		}
		// The first run is always killed; continues half of the time, the last ones never.
		kill := attempt == 0 || (attempt < 4 && rng.IntN(2) == 0)
		after := rng.IntN(6*killSteps + 4)             // events printed before the kill
		jitter := rng.IntN(40) * int(time.Millisecond) // and a little more
		evs, code, killed := runHelper(t, data, tmp, args, kill, after, time.Duration(jitter))
		if killed {
			f.kills++
			f.printedEvs += len(evs)
		}
		printed = append(printed, evs...)
		if session == "" {
			session = findSession(t, data, evs)
		}
		if !killed && code == 0 && session != "" {
			break
		}
		if !killed {
			t.Errorf("a run that was not killed exited %d", code)
			f.failedRuns++
		}
	}
	st, err := store.Open(filepath.Join(data, "tofu"))
	if err != nil {
		t.Errorf("reopen: %v", err)
		f.unended++
		return f
	}
	defer st.Close()
	log, err := st.Events(session)
	if err != nil {
		t.Error(err)
		f.unended++
		return f
	}
	for _, p := range printed {
		if p.Session != session {
			continue // a first run killed before its user message: its session is empty
		}
		if p.Seq == 0 || int(p.Seq) > len(log) || log[p.Seq-1].Type != p.Type || !sameJSON(log[p.Seq-1].Data, p.Data) {
			t.Errorf("session %s lost event %d (%s)", session, p.Seq, p.Type)
			f.lostEvents++
		}
	}
	var end store.TurnEnd
	if last := log[len(log)-1]; last.Type != store.EventTurnEnd || last.Decode(&end) != nil || end.Reason != store.EndDone {
		var types []string
		for _, ev := range log {
			types = append(types, string(ev.Type))
		}
		t.Errorf("session %s ends with %s %s; its log: %s", session, last.Type, last.Data, strings.Join(types, ","))
		f.unended++
	}
	b, _ := os.ReadFile(filepath.Join(ws, "counter"))
	seen := map[string]int{}
	for _, id := range strings.Fields(string(b)) {
		if seen[id]++; seen[id] == 2 {
			t.Errorf("session %s ran command %s twice", session, id)
			f.doubleRuns++
		}
	}
	for _, ev := range log {
		var g procgroup.Group
		if ev.Type == store.EventProcess && ev.Decode(&g) == nil {
			if m := procgroup.Members(g); len(m) > 0 {
				t.Errorf("session %s: group %d still has processes %v", session, g.PGID, m)
				f.orphans++
			}
		}
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil && r.Unfinished {
			f.unfinished++
		}
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "tofu-output-*"))
	if len(left) > 0 {
		t.Errorf("session %s left output copies %v", session, left)
		f.leftCopies += len(left)
	}
	return f
}

// runHelper runs the test binary as `tofu` with args and returns the events it printed, its
// exit code and whether it was killed: with kill, it gets SIGKILL once it printed after
// events and then jitter passed (or when it ends first, not at all).
func runHelper(t *testing.T, data, tmp string, args []string, kill bool, after int, jitter time.Duration) ([]store.Event, int, bool) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIHelper$")
	cmd.Env = append(os.Environ(), "TOFU_CLI_HELPER=1", "XDG_DATA_HOME="+data, "TMPDIR="+tmp,
		"TOFU_CLI_ARGS="+strings.Join(args, "\x1f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var evs []store.Event
	killed := false
	doKill := func() {
		if jitter > 0 {
			time.Sleep(jitter) // a random kill point, not a wait for anything
		}
		killed = cmd.Process.Kill() == nil
	}
	if kill && after == 0 {
		doKill()
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev store.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Seq == 0 {
			continue // test framework output, a line cut by the kill, or the closing summary
		}
		evs = append(evs, ev)
		if kill && !killed && len(evs) == after {
			doKill()
		}
	}
	err = cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(interface{ Signaled() bool }); !ok || !ws.Signaled() {
		killed = false // it ended by itself before the signal landed
	}
	if !killed && code != 0 {
		t.Logf("tofu %s: exit %d (%v)\n%s", strings.Join(args, " "), code, err, stderr.String())
	}
	return evs, code, killed
}

// findSession names the session a first run created: from what it printed, else from the
// store (it may have been killed before printing anything). A session without events (killed
// before the task was recorded) does not count: the task is run again.
func findSession(t *testing.T, data string, printed []store.Event) string {
	for _, ev := range printed {
		return ev.Session
	}
	st, err := store.Open(filepath.Join(data, "tofu"))
	if err != nil {
		return "" // killed before the store existed
	}
	defer st.Close()
	list, _ := st.Sessions()
	for _, s := range list {
		if s.Events > 0 {
			return s.ID
		}
	}
	return ""
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}
