package history

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
	"github.com/tofu-research/tofu/backend/tools"
)

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func session(t *testing.T, st *store.Store, title string, msgs ...any) string {
	t.Helper()
	info, err := st.CreateSession(title)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		typ := store.EventUser
		if _, ok := m.(store.AssistantMessage); ok {
			typ = store.EventAssistant
		}
		if _, err := st.Append(info.ID, typ, m); err != nil {
			t.Fatal(err)
		}
	}
	return info.ID
}

func TestHistorySearch(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	en := session(t, st, "Badger tuning",
		store.UserMessage{Text: "Why does the value log keep growing?"},
		store.AssistantMessage{Text: "Run garbage collection.", ToolCalls: []llm.ToolCall{{ID: "1", Name: "grep", Arguments: json.RawMessage(`{"pattern":"RunValueLogGC"}`)}}})
	zh := session(t, st, "数据库", store.UserMessage{Text: "请解释一下数据库压缩的原理"})
	x := New(st)
	t.Cleanup(x.Close)
	// Appended before the first search: found through the subscription and the build alike.
	ja := session(t, st, "テスト", store.UserMessage{Text: "統合テストの実行方法を教えて"})
	cases := []struct {
		query, session string
		seq            uint64
	}{
		{"value log growing", en, 1},
		{"RunValueLogGC", en, 2}, // a tool's argument
		{"grep", en, 2},          // a tool's name
		{"数据库压缩", zh, 1},
		{"テストの実行", ja, 1},
		{"badger tuning", en, 0}, // the title: any message of the session
	}
	for _, tc := range cases {
		got, err := x.Search(tc.query, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Session != tc.session || (tc.seq != 0 && got[0].Seq != tc.seq) {
			t.Errorf("%q: %+v, want %s #%d first", tc.query, got, tc.session, tc.seq)
		}
	}
	// Appended after the build: found at once.
	if _, err := st.Append(zh, store.EventUser, store.UserMessage{Text: "还有索引重建的问题"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.Search("索引重建", 5); len(got) == 0 || got[0].Session != zh || got[0].Seq != 2 || !strings.Contains(got[0].Snippet, "索引重建") {
		t.Fatalf("after append: %+v", got)
	}
	if err := st.DeleteSession(en); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.Search("value log growing", 5); len(got) != 0 {
		t.Fatalf("a deleted session is found: %+v", got)
	}
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("filler words here ", 30) + "the needle is HERE " + strings.Repeat("more filler ", 30)
	s := Snippet(long, "needle", 60)
	if !strings.Contains(s, "needle") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || len([]rune(s)) > 62 {
		t.Fatalf("snippet %q", s)
	}
	if s := Snippet("short\ntext", "x", 60); s != "short text" {
		t.Fatalf("short: %q", s)
	}
	zh := strings.Repeat("无关的内容。", 40) + "数据库压缩很重要" + strings.Repeat("其他。", 40)
	if s := Snippet(zh, "压缩", 40); !strings.Contains(s, "压缩") {
		t.Fatalf("chinese snippet %q", s)
	}
}

// synthetic makes n messages over sessions, like a long history: a Zipf vocabulary of words
// and identifiers, a few Chinese sentences.
func synthetic(n int, sessions []string) []store.Event {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.07, 2, 20000)
	zh := []rune("数据库检索内存压缩会话模型工具论文测试运行索引重建配置文件错误")
	evs := make([]store.Event, n)
	for i := range evs {
		var b strings.Builder
		for range 10 + rng.IntN(60) {
			if rng.IntN(20) == 0 {
				j := rng.IntN(len(zh) - 3)
				b.WriteString(string(zh[j : j+3]))
			} else {
				fmt.Fprintf(&b, "w%d", zipf.Uint64())
			}
			b.WriteByte(' ')
		}
		data, _ := json.Marshal(store.UserMessage{Text: b.String()})
		evs[i] = store.Event{Session: sessions[i%len(sessions)], Seq: uint64(i/len(sessions) + 1), Type: store.EventUser, Data: data, Time: time.Unix(int64(i), 0)}
	}
	return evs
}

// BenchmarkIndexEvent is the cost of indexing one message as it is appended, flushes to
// Badger and merges included (goal ≤ 0.2 ms). cpu_ms/op is the process's CPU time per event
// (user + system), which a loaded machine does not inflate as it does wall time.
func BenchmarkIndexEvent(b *testing.B) {
	st := openStore(b)
	info, err := st.CreateSession("title")
	if err != nil {
		b.Fatal(err)
	}
	x := New(st)
	defer x.Close()
	evs := synthetic(10000, []string{info.ID})
	b.ResetTimer()
	cpu0 := testtools.CPUTime()
	for i := range b.N {
		ev := evs[i%len(evs)]
		ev.Seq = uint64(i + 1)
		x.onEvent(ev)
	}
	if err := x.Sync(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64((testtools.CPUTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu_ms/op")
}

// appendAll appends evs' payloads to their sessions' logs, in batches (the index follows).
func appendAll(t testing.TB, st *store.Store, evs []store.Event) {
	t.Helper()
	bySession := map[string][]store.Entry{}
	var order []string
	for _, ev := range evs {
		if _, ok := bySession[ev.Session]; !ok {
			order = append(order, ev.Session)
		}
		bySession[ev.Session] = append(bySession[ev.Session], store.Entry{Type: ev.Type, Payload: ev.Data})
	}
	for _, id := range order {
		if _, err := st.AppendBatch(id, bySession[id]...); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkSearch100k searches 100,000 messages and reports the median and 99th percentile
// (goal: p50 ≤ 20 ms).
func BenchmarkSearch100k(b *testing.B) {
	st := openStore(b)
	var ids []string
	for range 100 {
		info, err := st.CreateSession("benchmark")
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	x := New(st)
	defer x.Close()
	appendAll(b, st, synthetic(100000, ids))
	if err := x.Sync(); err != nil {
		b.Fatal(err)
	}
	queries := []string{"w12 w345 w2000", "数据库 压缩", "w7 w8", "w19999 w42", "索引重建 w100"}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, err := x.Search(queries[i%len(queries)], 20); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99_ms")
}

func TestConversationTools(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	id := session(t, st, "Badger tuning",
		store.UserMessage{Text: "Why does the value log keep growing?"},
		store.AssistantMessage{Text: "Run garbage collection.", ToolCalls: []llm.ToolCall{{ID: "1", Name: "grep", Arguments: json.RawMessage(`{"pattern":"RunValueLogGC"}`)}}})
	long := strings.Repeat("长消息。", 2000)
	for range 3 {
		if _, err := st.Append(id, store.EventUser, store.UserMessage{Text: long}); err != nil {
			t.Fatal(err)
		}
	}
	x := New(st)
	t.Cleanup(x.Close)
	reg := tools.NewRegistry(x.Tools()...)
	run := func(name, args string) tools.Result {
		t.Helper()
		res, err := reg.Run(context.Background(), tools.Call{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run("conversation_search", `{"query":"value log growing"}`); !strings.Contains(res.Text, "session "+id+" #1") {
		t.Fatalf("search: %s", res.Text)
	}
	res := run("conversation_read", `{"session":"`+id+`"}`)
	if !strings.Contains(res.Text, "#1 user: Why does the value log keep growing?") || !strings.Contains(res.Text, `[called grep {"pattern":"RunValueLogGC"}]`) ||
		!strings.Contains(res.Text, "call again with from=") || len(res.Text) > readBudget+200 {
		t.Fatalf("read (%d bytes): %.300s", len(res.Text), res.Text)
	}
	if res := run("conversation_read", `{"session":"`+id+`","from":5}`); !strings.HasPrefix(res.Text, "Conversation") || !strings.Contains(res.Text, "#5 user") || strings.Contains(res.Text, "#1 user") {
		t.Fatalf("read from 5: %.200s", res.Text)
	}
	if res := run("conversation_read", `{"session":"nope"}`); !res.IsError {
		t.Fatalf("unknown session: %+v", res)
	}
	// conversation_list: most recent first, paper sessions left out, a date bound, a limit.
	later := session(t, st, "Release notes", store.UserMessage{Text: "draft the notes"})
	if _, err := st.CreateSession("never written to"); err != nil {
		t.Fatal(err)
	}
	paper, _ := st.CreateSession("A paper's Q&A")
	st.Append(paper.ID, store.EventUser, store.UserMessage{Text: "q"})
	st.UpdateSession(paper.ID, func(i *store.SessionInfo) { i.Paper, i.Purpose = "p1", store.PurposeQA })
	res = run("conversation_list", `{}`)
	if lines := strings.Split(res.Text, "\n"); len(lines) != 2 || !strings.Contains(lines[0], "session "+later+` "Release notes"`) || !strings.Contains(lines[1], id) {
		t.Fatalf("list:\n%s", res.Text)
	}
	if res := run("conversation_list", `{"limit":1}`); !strings.Contains(res.Text, later) || strings.Contains(res.Text, id) || !strings.Contains(res.Text, "… more") {
		t.Fatalf("list, limit 1:\n%s", res.Text)
	}
	if res := run("conversation_list", `{"before":"2000-01-01"}`); res.Text != "No conversation." {
		t.Fatalf("list before 2000: %s", res.Text)
	}
	if res := run("conversation_list", `{"before":"yesterday"}`); !res.IsError {
		t.Fatalf("a bad date: %+v", res)
	}
}

// conversation_read reads the conversation's active branch: an edited message's old version
// is not in it.
func TestConversationReadFollowsTheActiveBranch(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	id := session(t, st, "Fruit", store.UserMessage{Text: "tell me about apples"}, store.AssistantMessage{Text: "APPLE-REPLY"})
	if _, err := st.AppendBatch(id,
		store.Entry{Type: store.EventBranch, Payload: store.Branch{From: 0, Reason: store.BranchEdit}},
		store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: "tell me about bananas"}}); err != nil {
		t.Fatal(err)
	}
	x := New(st)
	t.Cleanup(x.Close)
	res, err := tools.NewRegistry(x.Tools()...).Run(context.Background(), tools.Call{Name: "conversation_read", Arguments: json.RawMessage(`{"session":"` + id + `"}`)})
	if err != nil || !strings.Contains(res.Text, "bananas") || strings.Contains(res.Text, "apples") || strings.Contains(res.Text, "APPLE-REPLY") {
		t.Fatalf("read: %v\n%s", err, res.Text)
	}
}
