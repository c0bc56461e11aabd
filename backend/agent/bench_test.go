package agent

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// instant is a model that answers at once, so a benchmark measures the harness alone.
type instant struct{}

func (instant) Name() string { return "instant" }
func (instant) Models(context.Context) ([]llm.ModelInfo, error) {
	return nil, nil
}
func (instant) Stream(context.Context, llm.Request) llm.Stream {
	return func(yield func(llm.Event, error) bool) {
		_ = yield(llm.Event{Kind: llm.EventText, Text: "done"}, nil) &&
			yield(llm.Event{Kind: llm.EventUsage, Usage: &llm.Usage{InputTokens: 1, OutputTokens: 1}}, nil) &&
			yield(llm.Event{Kind: llm.EventDone, StopReason: "stop"}, nil)
	}
}

// BenchmarkStepAt200Messages is the harness's own cost of one step (read the log, project it,
// build and count the request, record the reply and usage durably) in a session that already
// holds 200 messages of realistic size; the model answers instantly and no tool runs. Each
// iteration also appends the next user message, as Send does. Besides time it reports the
// process's CPU time (cpu-ns/op, Badger's goroutines and the kernel's sync work included) and
// the turn's writes to the log (writes/op: each is one transaction and one sync).
func BenchmarkStepAt200Messages(b *testing.B) { benchStep(b, nil) }

// BenchmarkStepAt200MessagesCompacted is the same step with the context manager on (the
// default policy: L0, L1 on every request, the L2 check against a 32k window).
func BenchmarkStepAt200MessagesCompacted(b *testing.B) {
	benchStep(b, func(t *Turn, st *store.Store) {
		put := compact.BlobPut(func(key, text string) error {
			_, err := st.PutBlob(key, strings.NewReader(text))
			return err
		})
		t.Context = compact.NewManager(compact.Defaults(), put, compact.State{})
		t.Window, t.SummaryWindow = 32768, 32768
	})
}

func benchStep(b *testing.B, setup func(*Turn, *store.Store)) {
	st, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	info, _ := st.CreateSession("bench")
	body := strings.Repeat("func example() { return compute(x, y) } // some code\n", 40) // ~2 KB
	for i := 0; i < 50; i++ {
		st.Append(info.ID, store.EventUser, store.UserMessage{Text: fmt.Sprintf("step %d: look at the file", i)})
		st.Append(info.ID, store.EventAssistant, store.AssistantMessage{Text: "reading", ToolCalls: []llm.ToolCall{{ID: fmt.Sprint(i), Name: "read_files", Arguments: []byte(`{"reads":[{"path":"a.go"}]}`)}}})
		st.Append(info.ID, store.EventToolResult, store.ToolResult{CallID: fmt.Sprint(i), Name: "read_files", Text: body})
		st.Append(info.ID, store.EventAssistant, store.AssistantMessage{Text: "I see the issue in a.go; here is what I think."})
	}
	log := &countingLog{Log: st}
	a := &Agent{Log: log, Provider: instant{}}
	j, err := OpenJournal(log, info.ID)
	if err != nil {
		b.Fatal(err)
	}
	turn := Turn{Session: info.ID, Model: "m", System: "You are Tofu.", Journal: j}
	if setup != nil {
		setup(&turn, st)
	}
	b.ResetTimer()
	cpu0 := testtools.CPUTime()
	for i := 0; i < b.N; i++ {
		st.Append(info.ID, store.EventUser, store.UserMessage{Text: "next"})
		if end := a.Run(context.Background(), turn); end.Reason != store.EndDone {
			b.Fatalf("end = %+v", end)
		}
	}
	b.ReportMetric(float64(testtools.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(log.writes.Load())/float64(b.N), "writes/op")
}

// countingLog counts the writes a turn makes.
type countingLog struct {
	Log
	writes atomic.Int64
}

func (c *countingLog) AppendBatch(session string, entries ...store.Entry) ([]store.Event, error) {
	c.writes.Add(1)
	return c.Log.AppendBatch(session, entries...)
}
