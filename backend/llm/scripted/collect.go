package scripted

import "github.com/tofu-research/tofu/backend/llm"

// Collected is a whole streamed reply as a provider's Stream gave it, for tests of providers.
type Collected struct {
	Text, Reasoning, Signature string
	Calls                      []llm.ToolCall
	Usage                      *llm.Usage
	Stop                       string
	Kinds                      []llm.EventKind // every event's kind, in order
	Err                        error           // the error that ended the stream
}

// Collect reads s to its end.
func Collect(s llm.Stream) Collected {
	var r Collected
	for ev, err := range s {
		if err != nil {
			r.Err = err
			break
		}
		r.Kinds = append(r.Kinds, ev.Kind)
		switch ev.Kind {
		case llm.EventText:
			r.Text += ev.Text
		case llm.EventReasoning:
			r.Reasoning += ev.Text
			r.Signature += ev.Signature
		case llm.EventToolCall:
			r.Calls = append(r.Calls, *ev.ToolCall)
		case llm.EventUsage:
			r.Usage = ev.Usage
		case llm.EventDone:
			r.Stop = ev.StopReason
		}
	}
	return r
}
