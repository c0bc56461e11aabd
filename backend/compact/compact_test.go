package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/testtools"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/assist"
)

// bigOutput is a deterministic tool output of about n bytes, with distinctive lines.
func bigOutput(seed, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d of output %d: value_%d_%d = compute_thing(%d)\n", i+1, seed, seed, i, i*seed)
	}
	return b.String()
}

// growing returns a native tool-calling conversation: system, task, then n steps of an
// assistant call and its result; results alternate between big and small, with a file read
// every fourth step.
func growing(n int) []llm.Message {
	conv := []llm.Message{
		{Role: llm.RoleSystem, Content: "You are Tofu."},
		{Role: llm.RoleUser, Content: "Fix the bug in parser.go."},
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		name, args := "run_command", fmt.Sprintf(`{"command":"go test ./... -run T%d"}`, i)
		if i%4 == 0 {
			name, args = "read_files", fmt.Sprintf(`{"reads":[{"path":"f%d.go"}]}`, i)
		}
		size := 300
		if i%2 == 0 {
			size = 6000
		}
		conv = append(conv,
			llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("Step %d: checking.", i), Reasoning: "thinking " + id,
				ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: name, Content: bigOutput(i, size)})
	}
	return conv
}

func TestBudget(t *testing.T) {
	c := Defaults()
	small := "ok\n"
	if kept, blob, ref := c.Budget("grep", small); kept != small || blob != "" || ref != "" {
		t.Fatalf("small output changed: %q %q %q", kept, blob, ref)
	}
	text := bigOutput(7, 50_000)
	kept, blob, ref := c.Budget("grep", text)
	if blob != text || ref != Ref(text) || !strings.HasPrefix(ref, "r") || len(ref) != 13 {
		t.Fatalf("blob/ref wrong: ref %q", ref)
	}
	if len(kept) > c.L0.HeadChars+c.L0.TailChars+400 || !strings.Contains(kept, "line 1 of output 7") ||
		!strings.Contains(kept, strings.TrimSpace(text[strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n"):])) {
		t.Fatalf("preview lacks head or tail (%d bytes):\n%s", len(kept), kept)
	}
	if RefIn(kept) != ref || !strings.Contains(kept, `read_result {"ref":"`+ref+`"}`) {
		t.Fatalf("preview does not name its ref:\n%s", kept)
	}
	again, _, _ := c.Budget("grep", text)
	if again != kept {
		t.Fatal("Budget is not deterministic")
	}
	// File reads get a larger budget than searches.
	mid := bigOutput(3, c.L0.SearchChars+1000)
	if k, _, _ := c.Budget("read_files", mid); k != mid {
		t.Fatal("a file read within its budget was cut")
	}
	if k, _, _ := c.Budget("grep", mid); k == mid {
		t.Fatal("a search over its budget was kept")
	}
	if KindOf("github__search_issues") != KindMCP || KindOf("web_fetch") != KindFetch || KindOf("x") != KindDefault {
		t.Fatal("KindOf")
	}
	off := Off()
	if k, b, _ := off.Budget("grep", text); k != text || b != "" {
		t.Fatal("L0 off still budgets")
	}
}

// The blob behind a preview is what read_result reads, by the ref the model was given.
func TestBudgetReadResultRoundTrip(t *testing.T) {
	store := NewMemStore()
	text := bigOutput(9, 40_000)
	kept, err := Enter(store, Defaults(), "run_command", text)
	if err != nil || kept == text {
		t.Fatalf("Enter: %v", err)
	}
	var rs tools.ResultStore = store
	tool := assist.NewReadResult(rs)
	for _, args := range []string{
		fmt.Sprintf(`{"ref":%q,"grep":"value_9_500 "}`, RefIn(kept)),
		fmt.Sprintf(`{"ref":%q,"start":501,"end":501}`, RefIn(kept)),
	} {
		res, err := tool.Run(context.Background(), tools.Call{Name: "read_result", Arguments: json.RawMessage(args)})
		if err != nil || res.IsError || !strings.Contains(res.Text, "line 501 of output 9: value_9_500 ") {
			t.Fatalf("read_result %s: %v %+v", args, err, res)
		}
	}
	// The adapter over the app's blob store reads the same text back.
	blobs := map[string]string{}
	put := BlobPut(func(k, t string) error { blobs[k] = t; return nil })
	if _, err := Enter(put, Defaults(), "run_command", text); err != nil {
		t.Fatal(err)
	}
	get := ResultStore(func(ref string) ([]byte, error) { return []byte(blobs[BlobKey(ref)]), nil })
	if got, _ := get.Get(" " + Ref(text) + " "); got != text {
		t.Fatal("ResultStore adapter does not return the blob")
	}
}

func TestPlaceholderStable(t *testing.T) {
	text := bigOutput(4, 5000)
	p := Placeholder("grep", text, 120)
	if p != Placeholder("grep", text, 120) || !IsPlaceholder(p) || RefIn(p) != Ref(text) {
		t.Fatalf("placeholder not stable or not recognised:\n%s", p)
	}
	if !strings.Contains(p, "line 1 of output 4") || len(p) > 500 {
		t.Fatalf("placeholder:\n%s", p)
	}
	obs := "<returncode>1</returncode>\n<output>\n" + text + "</output>"
	po := Placeholder("bash", obs, 120)
	if !strings.HasPrefix(po, "<returncode>1</returncode>\n[bash result compacted") || !IsToolResult(llm.Message{Role: llm.RoleUser, Content: po}) {
		t.Fatalf("observation placeholder:\n%s", po)
	}
}

func TestBuildDeterministicAndTail(t *testing.T) {
	conv := growing(40)
	cfg := Defaults()
	var s1, s2 State
	a, r1 := Build(conv, &s1, cfg)
	b, _ := Build(conv, &s2, cfg)
	if !reflect.DeepEqual(a, b) || s1 != s2 {
		t.Fatal("Build is not deterministic")
	}
	if !r1.Moved || r1.Compacted == 0 || r1.Tokens >= countMessages(conv) || r1.SavedTokens <= 0 {
		t.Fatalf("nothing compacted: %+v", r1)
	}
	if !reflect.DeepEqual(a[0], conv[0]) || a[1].Content != conv[1].Content {
		t.Fatal("system prompt or task rewritten")
	}
	// The hot tail is verbatim: at least HotResults results and HotTokens tokens.
	hot := hotStart(conv, cfg.L1.HotResults, cfg.L1.HotTokens)
	for i := hot; i < len(conv); i++ {
		if !reflect.DeepEqual(a[i], conv[i]) {
			t.Fatalf("hot message %d changed", i)
		}
	}
	// Small results stay; old reasoning goes.
	for i := 2; i < hot; i++ {
		m := conv[i]
		if IsToolResult(m) && len(m.Content) <= cfg.L1.MinChars && a[i].Content != m.Content {
			t.Fatalf("small result %d compacted", i)
		}
		if m.Role == llm.RoleAssistant && a[i].Reasoning != "" {
			t.Fatalf("old reasoning %d kept", i)
		}
	}
	// Images of cold results become a note.
	img := append([]llm.Message(nil), conv...)
	img[3].Images = [][]byte{[]byte("png")}
	out, _ := Build(img, nil, cfg)
	if len(out[3].Images) != 0 || !strings.Contains(out[3].Content, "1 image(s) compacted") {
		t.Fatalf("old image kept: %q", out[3].Content)
	}
	// L1 off: untouched.
	if off, _ := Build(conv, nil, Off()); !reflect.DeepEqual(off, conv) {
		t.Fatal("L1 off changed messages")
	}
}

// 100 consecutive requests from a growing conversation: each repeats the previous request
// byte for byte and appends to it, except on planned moves, which are few and rewrite only
// from the reported point; placeholders never change once written.
func TestPrefixNeverRewritten(t *testing.T) {
	testtools.CPUBound(t)
	conv := growing(100)
	cfg := Defaults()
	var st State
	var prev []llm.Message
	written := map[int]string{}
	moves, saved := 0, 0
	for step := 0; step < 100; step++ {
		n := 2 + 2*(step+1)
		msgs, rep := Build(conv[:n], &st, cfg)
		if len(msgs) != n {
			t.Fatalf("step %d: %d messages for %d", step, len(msgs), n)
		}
		planned := len(prev)
		if rep.Moved {
			moves++
			planned = rep.RewriteFrom
			if planned < 0 || planned >= n {
				t.Fatalf("step %d: move without a rewrite point: %+v", step, rep)
			}
		}
		for i := 0; i < planned && i < len(prev); i++ {
			if !reflect.DeepEqual(prev[i], msgs[i]) {
				t.Fatalf("step %d: message %d rewritten before the planned point %d (moved=%v)", step, i, planned, rep.Moved)
			}
		}
		for i, m := range msgs {
			if m.Content == conv[i].Content {
				continue
			}
			if w, ok := written[i]; ok && w != m.Content {
				t.Fatalf("step %d: placeholder %d changed", step, i)
			}
			written[i] = m.Content
		}
		prev = msgs
		saved = rep.SavedTokens
	}
	// A move happens only when it saves at least EpochTokens, and what it saves stays saved:
	// the planned breaks are bounded by the savings.
	if moves == 0 || moves > saved/cfg.L1.EpochTokens {
		t.Fatalf("%d moves in 100 requests for %d tokens saved", moves, saved)
	}
	t.Logf("%d planned cache breaks in 100 requests, %d tokens saved on the last; final mark %d", moves, saved, st.Mark)
	// The state survives a round trip through JSON (the agent records it as an event).
	b, _ := json.Marshal(st)
	var back State
	if json.Unmarshal(b, &back) != nil || back != st {
		t.Fatal("State does not round-trip")
	}
}

func TestBreakpointsAndLayout(t *testing.T) {
	msgs := Layout("You are Tofu.", "<instructions>be brief</instructions>", growing(3)[1:], "Date: 2026-01-01")
	if msgs[0].Role != llm.RoleSystem || !strings.HasSuffix(msgs[0].Content, "be brief</instructions>") ||
		!strings.Contains(msgs[len(msgs)-1].Content, "Date: 2026-01-01") {
		t.Fatalf("layout: %+v", msgs)
	}
	req := llm.Request{Messages: msgs}
	Breakpoints(&req, State{Mark: 4, Prev: 2})
	if req.CachePrefix != "1h" {
		t.Fatal("no 1h prefix breakpoint")
	}
	last := req.CacheBreakpoints[len(req.CacheBreakpoints)-1]
	if last.MessageIndex != len(msgs)-1 || last.TTL != "5m" || len(req.CacheBreakpoints) > 3 {
		t.Fatalf("breakpoints: %+v", req.CacheBreakpoints)
	}
}

func TestManager(t *testing.T) {
	store := NewMemStore()
	var moved []State
	m := NewManager(Defaults(), store, State{})
	m.OnMove = func(s State) { moved = append(moved, s) }
	req := llm.Request{Messages: growing(40)}
	rep, err := m.Prepare(&req)
	if err != nil || !rep.Moved || len(moved) != 1 || m.State().Mark != 82 {
		t.Fatalf("prepare: %v %+v %v", err, rep, moved)
	}
	// Every placeholder's ref can be reopened.
	for _, msg := range req.Messages {
		if ref := RefIn(msg.Content); ref != "" {
			if _, err := store.Get(ref); err != nil {
				t.Fatalf("ref %s not stored", ref)
			}
		}
	}
	if req.CachePrefix != PrefixTTL || len(req.CacheBreakpoints) == 0 {
		t.Fatal("no breakpoints")
	}
}

func BenchmarkBuild200(b *testing.B) {
	conv := growing(99) // 200 messages
	cfg := Defaults()
	Build(conv, nil, cfg) // warm the token cache, as a session does
	b.ReportAllocs()
	for b.Loop() {
		st := State{Mark: len(conv) - 2}
		Build(conv, &st, cfg)
	}
}
