package compact

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// oneCold is a conversation whose only compactable message is one big tool output, followed
// by steps small tool outputs: the hot tail (2 results) leaves it cold from the second step on.
func oneCold(steps int) []llm.Message {
	conv := []llm.Message{{Role: llm.RoleSystem, Content: "You are Tofu."}, {Role: llm.RoleUser, Content: "Fix it."}}
	call := func(i int, out string) {
		id := fmt.Sprintf("c%d", i)
		conv = append(conv,
			llm.Message{Role: llm.RoleAssistant, Content: "ok", ToolCalls: []llm.ToolCall{{ID: id, Name: "run_command",
				Arguments: json.RawMessage(fmt.Sprintf(`{"command":"step %d"}`, i))}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "run_command", Content: out})
	}
	call(0, bigOutput(1, 8000))
	for i := 1; i <= steps; i++ {
		call(i, fmt.Sprintf("small output %d", i))
	}
	return conv
}

// The mark moves when the tokens a move removes, at the cache-read price, over as many calls
// again as the session has made, outweigh re-sending what follows the change uncached; the
// figures are reported in the State (the context_state event).
func TestMoveCostModel(t *testing.T) {
	cfg := Defaults()
	cfg.L1.HotTokens, cfg.L1.EpochTokens = 0, 0
	conv := oneCold(3)
	var st State
	_, rep := Build(conv, &st, cfg)
	if !rep.Moved {
		t.Fatalf("a cold 8,000-char output right behind the hot tail should move the mark: %+v", st.Last)
	}
	mv := st.Last
	// The rewrite is what the previous request sent from the compacted output on (the newest
	// reply and its result are uncached either way), in its new form.
	msgs, _ := Build(conv, &State{Mark: st.Mark}, cfg)
	rewrite := 0
	for _, m := range msgs[rep.RewriteFrom : len(msgs)-2] {
		rewrite += MessageTokens(m)
	}
	if mv.Calls != 4 || mv.Saved != rep.SavedTokens || mv.Rewrite != rewrite ||
		math.Abs(mv.Cached-0.1*float64(rewrite+mv.Saved)) > 1e-9 ||
		math.Abs(mv.Gain-(float64(mv.Saved)*0.1*4-(float64(mv.Rewrite)-mv.Cached))) > 1e-9 || mv.Gain <= 0 {
		t.Fatalf("move %+v, rewrite %d", mv, rewrite)
	}
	// At a near-free cache the same rewrite does not pay for itself; without a price (no cache,
	// or an overflow retry) any saving does.
	cheap := cfg
	cheap.L1.CachePrice = 0.001
	if _, r := Build(conv, &State{}, cheap); r.Moved {
		t.Fatal("moved although the rewrite costs more than the saving is worth")
	}
	free := cfg
	free.L1.CachePrice = 0
	if _, r := Build(conv, &State{}, free); !r.Moved {
		t.Fatal("without a cache price every saving should move the mark")
	}
	// A saving below EpochTokens never moves it.
	floor := cfg
	floor.L1.EpochTokens = mv.Saved + 1
	if _, r := Build(conv, &State{}, floor); r.Moved {
		t.Fatal("moved below EpochTokens")
	}
}

// A cold assistant message keeps the head of its prose and its action (the last code block);
// the prose between and the blocks it quoted go, and it lists the names it no longer shows.
func TestAssistantHeadAndAction(t *testing.T) {
	cfg := Defaults().L1
	mid := strings.Repeat("Looking again at the quoted output, the culprit is parse_header_line in reader_utils.py. ", 25)
	msg := llm.Message{Role: llm.RoleAssistant, Content: "THOUGHT: the header parser drops the last field.\n\n```\nquoted output\n```\n" +
		mid + "\n```bash\npython -m pytest tests/test_reader.py\n```\n"}
	got, ok := compactAssistant(msg, cfg, true)
	if !ok {
		t.Fatal("a long cold assistant message was not compacted")
	}
	c := got.Content
	if !strings.HasPrefix(c, "THOUGHT: the header parser drops the last field.") || !strings.Contains(c, "python -m pytest tests/test_reader.py") ||
		strings.Contains(c, "quoted output") || strings.Contains(c, "Looking again") {
		t.Fatalf("head and action:\n%s", c)
	}
	if !strings.Contains(c, "[names: parse_header_line, reader_utils.py]") || !strings.Contains(c, "ref "+Ref(assistantBlob(msg))) {
		t.Fatalf("names or ref:\n%s", c)
	}
	if MessageTokens(got) >= MessageTokens(msg)/4 {
		t.Fatalf("%d tokens of %d kept", MessageTokens(got), MessageTokens(msg))
	}
	// While still in the working set (not strong) the prose between blocks stays.
	if mild, _ := compactAssistant(msg, cfg, false); !strings.Contains(mild.Content, "Looking again") {
		t.Fatalf("mild form:\n%s", mild.Content)
	}
	// Older assistant messages are shown strong, newer ones (within AssistantHotResults) mild.
	conv := oneCold(6)
	lv := levels(conv, len(conv), len(conv), L1Config{HotResults: 2, AssistantHotResults: 4, FileHotResults: 2})
	if lv[2] != levelOld || lv[3] != levelCold || lv[len(conv)-6] != levelCold || lv[len(conv)-1] != levelVerbatim {
		t.Fatalf("levels %v", lv)
	}
}

// A tool result's placeholder lists the names the output held, at most Names of them.
func TestPlaceholderNames(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "src/pkg/file_%02d.py:%d: def handler_%02d(request): pass\n", i, i+1, i)
	}
	conv := []llm.Message{{Role: llm.RoleUser, Content: "find handlers"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "g", Name: "grep", Arguments: json.RawMessage(`{"pattern":"def handler"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "g", ToolName: "grep", Content: b.String()}}
	cfg := Defaults().L1
	cfg.Names = 5
	got, ok := formAt(conv, 2, levelCold, cfg)
	if !ok || !strings.Contains(got.Content, "[names: file_01.py, handler_01, file_02.py, handler_02, file_03.py (+") {
		t.Fatalf("placeholder:\n%s", got.Content)
	}
	cfg.Names = 0
	if none, _ := formAt(conv, 2, levelCold, cfg); strings.Contains(none.Content, "[names:") {
		t.Fatal("Names 0 should list none")
	}
	if n := Names("the value of request body and SomeClass.method_name here"); len(n) != 1 || n[0] != "SomeClass.method_name" {
		t.Fatalf("Names: %v", n)
	}
}

// bashStep appends a bash-only step: the command and its observation.
func bashStep(conv []llm.Message, cmd, out string) []llm.Message {
	return append(conv, llm.Message{Role: llm.RoleAssistant, Content: "THOUGHT: next.\n\n```bash\n" + cmd + "\n```"},
		llm.Message{Role: llm.RoleUser, Content: "<returncode>0</returncode>\n<output>\n" + out + "</output>"})
}

// A file read stays in view while the session keeps naming its file, and goes cold once
// FileIdleResults results in a row never did.
func TestFileLeftGoesCold(t *testing.T) {
	c := Defaults().L1
	c.HotTokens, c.FileIdleResults = 0, 3
	base := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "task"}}
	base = bashStep(base, "cat src/parser.py", bigOutput(1, 3000))
	touching := base
	for i := 0; i < 6; i++ {
		touching = bashStep(touching, fmt.Sprintf("sed -i 's/a%d/b/' src/parser.py", i), "ok")
	}
	if lv := levels(touching, len(touching), len(touching), c); lv[3] != levelVerbatim {
		t.Fatalf("a file still being edited went cold: %v", lv)
	}
	left := base
	for i := 0; i < 3; i++ {
		left = bashStep(left, fmt.Sprintf("python run_%d.py", i), "ok")
	}
	if lv := levels(left, len(left), len(left), c); lv[3] != levelCold {
		t.Fatalf("a file left for 3 results stayed verbatim: %v", lv)
	}
	// Judged as of an older file mark, the same read is still in view (a move may leave the
	// file reads behind when moving them too costs more than it saves).
	if lv := levels(left, len(left), len(left)-2, c); lv[3] != levelVerbatim {
		t.Fatalf("file mark ignored: %v", lv)
	}
}

// Cold command outputs shrink from SpentMinChars on; file reads keep MinChars.
func TestSpentOutputsShrinkFirst(t *testing.T) {
	c := Defaults().L1
	out := bigOutput(2, 800)
	conv := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "task"}}
	conv = bashStep(conv, "python -m pytest tests/test_a.py", out)
	conv = bashStep(conv, "cat src/a.py", out)
	if _, ok := formAt(conv, 3, levelCold, c); !ok {
		t.Fatal("an 800-char test run was not compacted when cold")
	}
	if _, ok := formAt(conv, 5, levelCold, c); ok {
		t.Fatal("an 800-char file read was compacted")
	}
}

// A caller that knows how few calls are left (the turn's step limit) bounds the payback: the
// saving is counted over at most that many calls, and a move that pays over as many calls
// again as so far does not pay over one.
func TestCallsLeftBoundsPayback(t *testing.T) {
	cfg := Defaults()
	cfg.L1.HotTokens, cfg.L1.EpochTokens = 0, 0
	conv := oneCold(3)
	var free State
	if _, rep := Build(conv, &free, cfg); !rep.Moved || free.Last.Calls != 4 {
		t.Fatalf("no move without a bound: %+v", free.Last)
	}
	// Priced over one call, the gain loses three calls' worth of the saving.
	m := NewManager(cfg, nil, State{})
	req := llm.Request{Messages: conv}
	rep, _ := m.PrepareLeft(&req, 1)
	mv := m.State().Last
	want := free.Last.Gain - 3*0.1*float64(free.Last.Saved)
	if mv.Calls != 1 || math.Abs(mv.Gain-want) > 1e-9 || rep.Moved != (want > 0) {
		t.Fatalf("bounded move %+v (moved %v), want gain %.1f", mv, rep.Moved, want)
	}
	// A rewrite that one call cannot repay: the same cold output with a long verbatim tail.
	long := oneCold(3)
	long[len(long)-3].Content = bigOutput(9, 1400) // a small result kept verbatim (MinChars)
	long[len(long)-5].Content = bigOutput(8, 1400)
	st := State{Left: 1}
	if _, rep := Build(long, &st, cfg); rep.Moved {
		t.Fatalf("a move paid for within one call: %+v", st.Last)
	}
	if _, rep := Build(long, &State{}, cfg); !rep.Moved {
		t.Fatal("the same move without the bound did not pay")
	}
}
