package toolparse

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// chunked streams text in pieces of size bytes (UTF-8 may split: the scanner works on bytes),
// then usage and done; sent counts the pieces handed out so far.
func chunked(text string, size int, sent *int) llm.Stream {
	return func(yield func(llm.Event, error) bool) {
		for len(text) > 0 {
			n := min(size, len(text))
			*sent++
			if !yield(llm.Event{Kind: llm.EventText, Text: text[:n]}, nil) {
				return
			}
			text = text[n:]
		}
		if yield(llm.Event{Kind: llm.EventUsage, Usage: &llm.Usage{}}, nil) {
			yield(llm.Event{Kind: llm.EventDone, StopReason: "stop"}, nil)
		}
	}
}

func collect(t *testing.T, s llm.Stream) (text string, calls []llm.ToolCall, kinds []llm.EventKind) {
	t.Helper()
	var b strings.Builder
	for ev, err := range s {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, ev.Kind)
		switch ev.Kind {
		case llm.EventText:
			b.WriteString(ev.Text)
		case llm.EventToolCall:
			calls = append(calls, *ev.ToolCall)
		}
	}
	return b.String(), calls, kinds
}

// Every parse case, streamed in pieces of every size, gives what Parse gives.
func TestWrapMatchesParse(t *testing.T) {
	t.Parallel()
	for name, tc := range parseCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, size := range []int{1, 2, 3, 5, 7, 13, 64, len(tc.text)} {
				var sent int
				text, calls, kinds := collect(t, Wrap(chunked(tc.text, size, &sent), tc.family, tools))
				checkCalls(t, calls, tc.calls)
				if len(tc.calls) == 0 && text != tc.text {
					t.Errorf("size %d: text %q, want it unchanged", size, text)
				}
				if len(tc.calls) > 0 && strings.TrimSpace(text) != tc.rest {
					t.Errorf("size %d: text %q, want %q", size, text, tc.rest)
				}
				if kinds[len(kinds)-1] != llm.EventDone {
					t.Errorf("size %d: last event %s", size, kinds[len(kinds)-1])
				}
			}
		})
	}
}

// Plain text is not held back: each piece comes out before the next is read, except the few
// bytes that could begin a marker.
func TestWrapPassesTextThrough(t *testing.T) {
	t.Parallel()
	text := "The answer is 42. Use x < y and a `code` span, then [1] a note {like this}."
	for _, family := range []string{"qwen", "qwen3-coder", "llama", "generic"} {
		var sent, got int
		for ev := range Wrap(chunked(text, 4, &sent), family, tools) {
			if ev.Kind != llm.EventText {
				continue
			}
			got += len(ev.Text)
			// What is still held must be a possible marker start: at most "```json" less a byte.
			if held := min(sent*4, len(text)) - got; held > len(fenceOpen)-1 {
				t.Errorf("%s: %d bytes held after %d pieces", family, held, sent)
			}
		}
		if got != len(text) {
			t.Errorf("%s: %d bytes out of %d", family, got, len(text))
		}
	}
}

func TestWrapHoldsOnlyThePossibleCall(t *testing.T) {
	t.Parallel()
	src := func(yield func(llm.Event, error) bool) {
		for _, s := range []string{"Let me check.", " <tool", "_call>{\"name\": \"search\",", " \"arguments\": {}}</tool_call>", " Done."} {
			if !yield(llm.Event{Kind: llm.EventText, Text: s}, nil) {
				return
			}
		}
		yield(llm.Event{Kind: llm.EventDone}, nil)
	}
	var got []string
	for ev := range Wrap(src, "qwen", tools) {
		switch ev.Kind {
		case llm.EventText:
			got = append(got, fmt.Sprintf("text %q", ev.Text))
		case llm.EventToolCall:
			got = append(got, "call "+ev.ToolCall.Name+" "+string(ev.ToolCall.Arguments))
		default:
			got = append(got, string(ev.Kind))
		}
	}
	want := []string{`text "Let me check."`, `text " "`, `call search {}`, `text " Done."`, "done"}
	if !slices.Equal(got, want) {
		t.Errorf("events\n%q\nwant\n%q", got, want)
	}
}

func TestWrapRetryAndErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	src := func(yield func(llm.Event, error) bool) {
		_ = yield(llm.Event{Kind: llm.EventText, Text: "<tool_call>{\"name\": \"sea"}, nil) &&
			yield(llm.Event{Kind: llm.EventRetry, Text: "reset"}, nil) &&
			yield(llm.Event{Kind: llm.EventText, Text: "Hi <tool_call>{\"na"}, nil) &&
			yield(llm.Event{}, boom)
	}
	var kinds []string
	var err error
	for ev, e := range Wrap(src, "qwen", tools) {
		if e != nil {
			err = e
			break
		}
		kinds = append(kinds, string(ev.Kind)+":"+ev.Text)
	}
	// The held piece of the voided attempt is dropped; the one cut by the error is text.
	want := []string{"retry:reset", "text:Hi ", "text:<tool_call>{\"na"}
	if !slices.Equal(kinds, want) || !errors.Is(err, boom) {
		t.Errorf("got %q, %v; want %q and the error", kinds, err, want)
	}
	// A consumer that stops early stops the source.
	var sent int
	for range Wrap(chunked("plain text here", 1, &sent), "qwen", tools) {
		break
	}
	if sent != 1 {
		t.Errorf("source sent %d pieces after the consumer stopped, want 1", sent)
	}
}

// A real Ollama stream from the scripted server, the text cut in 40 pieces so the markers arrive
// split across chunks.
func TestWrapOllamaStream(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Model{Name: "qwen2.5:7b", ContextLength: 8192, Capabilities: []llm.Capability{llm.CapTools}})
	srv.Default(scripted.Reply{Text: "Checking now. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Kyoto\"}}\n</tool_call>", Chunks: 40})
	p := ollama.New(srv.URL)
	req := llm.Request{Model: "qwen2.5:7b", Tools: tools, Messages: []llm.Message{{Role: llm.RoleUser, Content: "weather?"}}}
	text, calls, _ := collect(t, Wrap(p.Stream(t.Context(), req), FamilyOf(req.Model), req.Tools))
	checkCalls(t, calls, []call{{"get_weather", `{"city":"Kyoto"}`}})
	if text != "Checking now. " {
		t.Errorf("text %q", text)
	}
}
