package compact

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/testtools"
)

// rereading is a conversation that reads the same files again and again: read_files of a.go
// (sometimes edited in between: its content changes in one line), runs of the same test (the
// same output every other time), and other big outputs between them that go cold.
func rereading(n int) []llm.Message {
	conv := []llm.Message{{Role: llm.RoleSystem, Content: "You are Tofu."}, {Role: llm.RoleUser, Content: "Fix it."}}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		name, args, out := "run_command", fmt.Sprintf(`{"command":"python step_%d.py"}`, i), bigOutput(100+i, 4000)
		switch i % 3 {
		case 0:
			name, args = "read_files", `{"reads":[{"path":"a.go"}]}`
			out = strings.Replace(bigOutput(1, 5000), "line 7 ", fmt.Sprintf("line 7 (edit %d) ", i/6), 1)
		case 1:
			args = `{"command":"go test ./..."}`
			out = bigOutput(2+i%2, 3000) + fmt.Sprintf("\n[exit 1 · %d.%02ds]", i, i)
		}
		conv = append(conv,
			llm.Message{Role: llm.RoleAssistant, Content: "next", ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: name, Content: out})
	}
	return conv
}

var rereadNum = regexp.MustCompile(`result #(\d+) above`)

// checkRereads asserts that every re-read form in msgs points at a result the same request
// shows whole, with the same output (a reference) or the output the diff was taken against.
func checkRereads(t *testing.T, step int, conv, msgs []llm.Message) (refs, diffs int) {
	t.Helper()
	byNum := map[int]int{}
	for i := range conv {
		if IsToolResult(conv[i]) {
			byNum[len(byNum)+1] = i
		}
	}
	for i, m := range msgs {
		if !IsReread(m.Content) {
			continue
		}
		num, _ := strconv.Atoi(rereadNum.FindStringSubmatch(m.Content)[1])
		e := byNum[num]
		if e >= i || msgs[e].Content != conv[e].Content {
			t.Fatalf("step %d: message %d points at result #%d (message %d), which the request does not show whole", step, i, num, e)
		}
		if strings.Contains(m.Content, "[unchanged: ") {
			refs++
			if outputKey(conv[e].Content) != outputKey(conv[i].Content) {
				t.Fatalf("step %d: message %d is not the same output as #%d", step, i, num)
			}
		} else {
			diffs++
			if callKey(conv, e) != callKey(conv, i) || len(m.Content) >= len(conv[i].Content) {
				t.Fatalf("step %d: diff %d is against another call or not smaller", step, i)
			}
		}
	}
	return refs, diffs
}

// A result that repeats one the request shows whole is a reference to it, and a re-read
// after an edit a diff; both only while the earlier result is shown whole, and the cached
// prefix is still only rewritten at a move.
func TestRereadsPointAtWholeResults(t *testing.T) {
	testtools.CPUBound(t)
	conv := rereading(90)
	cfg := Defaults()
	var st State
	var prev []llm.Message
	refs, diffs, moves := 0, 0, 0
	for step := 0; step < 90; step++ {
		n := 2 + 2*(step+1)
		msgs, rep := Build(conv[:n], &st, cfg)
		planned := len(prev)
		if rep.Moved {
			moves++
			planned = rep.RewriteFrom
		}
		for i := 0; i < planned && i < len(prev); i++ {
			if !reflect.DeepEqual(prev[i], msgs[i]) {
				t.Fatalf("step %d: message %d rewritten before the planned point %d", step, i, planned)
			}
		}
		r, d := checkRereads(t, step, conv[:n], msgs)
		refs, diffs = refs+r, diffs+d
		prev = msgs
	}
	if refs == 0 || diffs == 0 || moves == 0 {
		t.Fatalf("%d references, %d diffs, %d moves over 90 requests", refs, diffs, moves)
	}
	off := cfg
	off.L1.Rereads = false
	_, with := Build(conv, &State{}, cfg)
	_, without := Build(conv, &State{}, off)
	if with.Tokens >= without.Tokens {
		t.Fatalf("rereads sent %d tokens, without them %d", with.Tokens, without.Tokens)
	}
	t.Logf("%d references and %d diffs over 90 requests (%d moves); last request %d tokens, %d without rereads",
		refs, diffs, moves, with.Tokens, without.Tokens)
}

// The forms themselves: a re-run with the same output (run_command's timing aside) is one
// line that keeps the new status; a re-read after a one-line edit is a diff of that line.
func TestRereadForms(t *testing.T) {
	conv := rereading(5)
	msgs := view(conv, make([]uint8, len(conv)), Defaults().L1)
	// Results: #1 a.go, #2 go test (exit 1 · 1.01s), #3 step_2, #4 a.go again, #5 go test again
	// (another output: i%2 differs).
	if msgs[9].Content != "[unchanged: the same output as this call's earlier result #1 above]" {
		t.Fatalf("re-read of an unchanged file: %q", msgs[9].Content)
	}
	if msgs[11].Content != conv[11].Content {
		t.Fatalf("a re-run with another output changed form: %q", msgs[11].Content)
	}
	again := append(append([]llm.Message(nil), conv...), conv[4], conv[5])
	again[len(again)-1].Content = strings.Replace(conv[5].Content, "[exit 1 · 1.01s]", "[exit 1 · 9.99s]", 1)
	msgs = view(again, make([]uint8, len(again)), Defaults().L1)
	if got := msgs[len(msgs)-1].Content; got != "[unchanged: the same output as this call's earlier result #2 above]\n[exit 1 · 9.99s]" {
		t.Fatalf("re-run with the same output: %q", got)
	}
	// The diff is taken against #1: #4 is a reference to it, not the output shown whole.
	edited := append(append([]llm.Message(nil), conv...), conv[2], conv[3])
	edited[len(edited)-1].Content = strings.Replace(conv[3].Content, "line 7 (edit 0) ", "line 7 (edit 9) ", 1)
	msgs = view(edited, make([]uint8, len(edited)), Defaults().L1)
	got := msgs[len(msgs)-1].Content
	if !strings.HasPrefix(got, "[changed since this call's earlier result #1 above; unified diff of its lines against it:]\n@@ -5,5 +5,5 @@\n") ||
		!strings.Contains(got, "\n-line 7 (edit 0) ") || !strings.Contains(got, "\n+line 7 (edit 9) ") || MessageTokens(msgs[len(msgs)-1]) > 200 {
		t.Fatalf("re-read after an edit (%d tokens): %q", MessageTokens(msgs[len(msgs)-1]), got)
	}
	// The earlier result compacted (cold), the re-read is shown whole: nothing points at it.
	lv := make([]uint8, len(conv))
	lv[3] = levelCold
	if msgs = view(conv, lv, Defaults().L1); msgs[9].Content != conv[9].Content {
		t.Fatalf("a reference to a compacted result: %q", msgs[9].Content)
	}
}

// The latest failing run stays in view until it runs again; runs that passed and listings
// shrink first.
func TestFailingRunKept(t *testing.T) {
	c := Defaults().L1
	c.HotTokens = 0
	if !Failed("<returncode>1</returncode>\n<output>\nboom</output>") || Failed("<returncode>0</returncode>\n<output>\nTraceback (most recent call last):</output>") ||
		!Failed("x\nTraceback (most recent call last):\n  File") || !Failed("ok\n[exit 2 · 1.2s]") || Failed("all good\n[exit 0 · 1.2s]") {
		t.Fatal("Failed")
	}
	conv := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "task"}}
	conv = bashStep(conv, "ls -la src", bigOutput(5, 800))
	conv = append(bashStep(conv, "python -m pytest tests/test_a.py", bigOutput(6, 3000))[:len(conv)+1],
		llm.Message{Role: llm.RoleUser, Content: "<returncode>1</returncode>\n<output>\n" + bigOutput(6, 3000) + "</output>"})
	for i := 0; i < 3; i++ {
		conv = bashStep(conv, fmt.Sprintf("sed -i 's/x%d/y/' src/a.py && python -c 'import a' # tests/test_a.py", i), "done")
	}
	lv := levels(conv, len(conv), len(conv), c)
	if lv[5] != levelVerbatim {
		t.Fatalf("the failing run went cold: %v", lv)
	}
	if _, ok := formAt(conv, 3, lv[3], c); !ok {
		t.Fatal("an 800-char listing was not compacted when cold")
	}
	rerun := bashStep(conv, "python -m pytest tests/test_a.py", "1 passed")
	if lv := levels(rerun, len(rerun), len(rerun), c); lv[5] != levelCold {
		t.Fatalf("a failing run kept after it ran again: %v", lv)
	}
	off := c
	off.KeepFailing = false
	if lv := levels(conv, len(conv), len(conv), off); lv[5] != levelCold {
		t.Fatalf("keep_failing off: %v", lv)
	}
}
