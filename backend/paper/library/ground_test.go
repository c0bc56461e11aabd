package library

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// The Q&A request carries the passages that answer the question (the Fed's warning is on page
// 4 of the ICML paper), the citation instruction and the question; the log names them.
func TestAugmentQA(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	info := e.importFile(t, sharedPaper(t, "icml2024_altmeyer_agi_claims"))
	sid, err := e.lib.Session(info.ID, store.PurposeQA)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := e.lib.Session(info.ID, store.PurposeQA); again != sid {
		t.Fatalf("a second Q&A session %s beside %s", again, sid)
	}
	q := "On which date did the Fed warn that the US economy was at risk of a recession at the onset of the Global Financial Crisis?"
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: q}}
	out, err := e.lib.Augment(sid, scripted.DemoModelName, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || !strings.HasPrefix(out[0].Content, "sys\n\n") || !strings.Contains(out[0].Content, "[p. N]") || msgs[1].Content != q || msgs[0].Content != "sys" {
		t.Fatalf("augment: the instructions go to the system message, the passages to the question: %+v", out)
	}
	sent := out[1].Content
	if !strings.Contains(sent, "\n[page 4] ") || !strings.Contains(sent, "27 February 2007") || !strings.HasSuffix(sent, "Question: "+q) {
		t.Fatalf("request:\n%.800s", sent)
	}
	evs, _ := e.store.Events(sid)
	var rec store.Retrieval
	if len(evs) != 1 || evs[0].Type != store.EventRetrieval || evs[0].Decode(&rec) != nil {
		t.Fatalf("events: %s", types(evs))
	}
	if rec.Method != "bm25" || rec.Paper != info.ID || len(rec.Chunks) == 0 || rec.Chunks[0].Pages[0] != 4 || rec.Chunks[0].Score <= 0 {
		t.Fatalf("retrieval: %+v", rec)
	}

	// A question with no word of the paper gets its first chunks.
	out, err = e.lib.Augment(sid, scripted.DemoModelName, []llm.Message{{Role: llm.RoleUser, Content: "zzzz qqqq"}})
	if err != nil || !strings.Contains(out[len(out)-1].Content, "<passage id=0 ") {
		t.Fatalf("fallback: %v\n%.300s", err, out[len(out)-1].Content)
	}
	evs, _ = e.store.Events(sid)
	evs[len(evs)-1].Decode(&rec)
	if rec.Method != "first_chunks" || len(rec.Chunks) != 3 {
		t.Fatalf("fallback retrieval: %+v", rec)
	}

	// A session that is not a paper's is left alone, and logs nothing.
	plain, _ := e.store.CreateSession("chat")
	if out, err := e.lib.Augment(plain.ID, scripted.DemoModelName, msgs); err != nil || out[1].Content != q {
		t.Fatalf("plain session: %v %+v", err, out)
	}
	if evs, _ := e.store.Events(plain.ID); len(evs) != 0 {
		t.Fatalf("plain session events: %s", types(evs))
	}
}

// Issue 32: a follow-up question re-sent the earlier one bare, so nothing of a paper
// conversation was ever served from a provider's cache. The second question's request starts
// with the first request's messages, byte for byte.
func TestFollowUpKeepsThePrefix(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	e := newEnv(t)
	info := e.importFile(t, sharedPaper(t, "specter_acl2020"))
	sid, err := e.lib.Session(info.ID, store.PurposeQA)
	if err != nil {
		t.Fatal(err)
	}
	q1, q2 := "How are negative examples selected?", "What does section 2.4 say exactly?"
	first, err := e.lib.Augment(sid, scripted.DemoModelName, []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: q1}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.lib.Augment(sid, scripted.DemoModelName, []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: q1},
		{Role: llm.RoleAssistant, Content: "Two sets [p. 3]."}, {Role: llm.RoleUser, Content: q2},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(second) != len(first)+2 {
		t.Fatalf("%d messages after %d", len(second), len(first))
	}
	for i, m := range first {
		if second[i].Role != m.Role || second[i].Content != m.Content {
			t.Fatalf("message %d changed:\n%.300s\nthen\n%.300s", i, m.Content, second[i].Content)
		}
	}
	if last := second[len(second)-1].Content; !strings.Contains(last, `section="2.4 Selecting Negative Distractors"`) || !strings.HasSuffix(last, "Question: "+q2) {
		t.Fatalf("the follow-up:\n%.500s", last)
	}
}

// A report request holds the system prompt and the paper within the model's window (8k for
// the scripted model): every section's first chunk, then the rest in order, never earlier
// reports.
func TestAugmentReport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	info := e.importFile(t, sharedPaper(t, "specter_acl2020"))
	sid, err := e.lib.Session(info.ID, store.PurposeReport)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"},
		{Role: llm.RoleUser, Content: ReportPrompt},
		{Role: llm.RoleAssistant, Content: "an earlier report"},
		{Role: llm.RoleUser, Content: ReportPrompt},
	}
	out, err := e.lib.Augment(sid, scripted.DemoModelName, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Role != llm.RoleSystem || !strings.Contains(out[1].Content, "## TL;DR") {
		t.Fatalf("report request: %d messages\n%.300s", len(out), out[len(out)-1].Content)
	}
	budget := (8192 - 2048 - 1024) * 3
	if n := len(out[1].Content); n > budget+4000 {
		t.Fatalf("the report request has %d bytes of paper, the budget is %d", n, budget)
	}
	evs, _ := e.store.Events(sid)
	var rec store.Retrieval
	evs[len(evs)-1].Decode(&rec)
	if rec.Method != "full_text" || rec.Words < 1500 || rec.Words > 3200 || rec.Chunks[len(rec.Chunks)-1].Pages[0] < 6 {
		t.Fatalf("report retrieval: %+v", rec)
	}
	if s, _ := e.store.Session(sid); s.Paper != info.ID || s.Purpose != store.PurposeReport {
		t.Fatalf("session %+v", s)
	}
}

// A paper imported before the passages were cut as they are now is cut again from its stored
// text when it is first asked about, and the new cut is kept.
func TestOlderChunksAreCutAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	info := e.importFile(t, sharedPaper(t, "specter_acl2020"))
	old, _ := json.Marshal(structure{Chunks: []paper.Chunk{{ID: 0, Section: "2 Model", Pages: []int{2}, Text: "a passage of the old cut", Words: 5}}})
	if _, err := e.store.PutBlob(structKey(info.ID), bytes.NewReader(old)); err != nil {
		t.Fatal(err)
	}
	ix, err := e.lib.index(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.chunks) < 20 || ix.index.Passages("section 2.4", 1)[0].Chunk.Section != "2.4 Selecting Negative Distractors" {
		t.Fatalf("%d chunks after the new cut", len(ix.chunks))
	}
	if ps, err := e.lib.structure(info.ID); err != nil || ps.ChunkVersion != paper.ChunkVersion || len(ps.Chunks) != len(ix.chunks) {
		t.Fatalf("stored cut: version %d, %d chunks, %v", ps.ChunkVersion, len(ps.Chunks), err)
	}
}
