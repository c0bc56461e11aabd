package agent

import (
	"encoding/json"
	"fmt"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/store"
)

// Rebuild builds again the request a model call sent, as the provider client received it,
// from the session's log (events) and what the call recorded it was built from besides the log
// (b, whose blobs part reads): the same projection of the log, L2 summary, system message,
// tools and L1 view as the turn's build, then the settings the client got. Encoding it with
// the client's encoder gives the bytes sent.
func Rebuild(events []store.Event, b *router.Built, part func(key string) ([]byte, error)) (llm.Request, error) {
	return NewRebuilder(events, part).Rebuild(b)
}

// Rebuilder rebuilds the requests of a session's calls, taken in log order, projecting the log
// once as the turn did: through a Journal that takes the events up to each call's Upto.
type Rebuilder struct {
	events []store.Event
	part   func(key string) ([]byte, error)
	j      journal
	next   int // events[:next] are in j
}

// NewRebuilder returns a Rebuilder over a session's whole log.
func NewRebuilder(events []store.Event, part func(key string) ([]byte, error)) *Rebuilder {
	return &Rebuilder{events: events, part: part, j: journal{part: part, proj: projection{part: part}}}
}

// Rebuild is Rebuild for the next call (its Upto not before the previous call's, else the
// log is projected again from its start).
func (r *Rebuilder) Rebuild(b *router.Built) (llm.Request, error) {
	if r.next > 0 && b.Upto < r.events[r.next-1].Seq {
		r.j, r.next = journal{part: r.part, proj: projection{part: r.part}}, 0
	}
	from := r.next
	for r.next < len(r.events) && r.events[r.next].Seq <= b.Upto {
		r.next++
	}
	r.j.apply(r.events[from:r.next])
	path, msgs := r.j.path, r.j.proj.messages()
	part := r.part
	if b.Phase != 0 {
		var brief string
		for _, e := range path {
			var ph store.Phase
			if e.Seq == b.Phase && e.Type == store.EventPhase && e.Decode(&ph) == nil {
				brief = ph.Brief
			}
		}
		msgs = phaseMessages(path, b.Phase, brief)
	}
	text := func(key, what string) (string, error) {
		if key == "" {
			return "", nil
		}
		data, err := part(key)
		if err != nil {
			return "", fmt.Errorf("the %s (%s): %w", what, key, err)
		}
		return string(data), nil
	}
	decode := func(key, what string, v any) error {
		data, err := text(key, what)
		if err != nil || key == "" {
			return err
		}
		if err := json.Unmarshal([]byte(data), v); err != nil {
			return fmt.Errorf("the %s (%s): %w", what, key, err)
		}
		return nil
	}
	if b.Summary != nil {
		return rebuildSummary(path, msgs, b, text, decode)
	}
	if b.L2 {
		instructions, err := text(b.Instructions, "instruction files")
		if err != nil {
			return llm.Request{}, err
		}
		if active, _ := ActiveCompaction(path, msgs); active != nil {
			msgs = compact.Apply(msgs, active, instructions)
		}
	}
	if b.Augmented != "" {
		msgs = nil
		if err := decode(b.Augmented, "paper reader's messages", &msgs); err != nil {
			return llm.Request{}, err
		}
	}
	system, err := text(b.System, "system prompt")
	if err != nil {
		return llm.Request{}, err
	}
	var tools []llm.ToolSpec
	if err := decode(b.Tools, "tool specs", &tools); err != nil {
		return llm.Request{}, err
	}
	req := assemble("", "", system, tools, msgs)
	if b.Context != "" {
		var cfg compact.Config
		if err := decode(b.Context, "context manager's config", &cfg); err != nil {
			return llm.Request{}, err
		}
		var st compact.State
		if l := b.L1; l != nil {
			st = compact.State{Mark: l.Mark, Prev: l.Prev, Epoch: l.Epoch, Base: l.Base, Lag: l.Lag, Left: l.Left}
		}
		compact.View(&req, &st, cfg)
	}
	b.Settings.Apply(&req)
	return req, nil
}

// rebuildSummary builds again an L2 summariser's request, as summarize made it: from the view
// the turn had at b.Upto (msgs, the projection of path, with the compaction in force applied
// without the instruction files), the context config and window it was sized for, and the
// summariser's prompt the call recorded.
func rebuildSummary(path []store.Event, msgs []llm.Message, b *router.Built,
	text func(key, what string) (string, error), decode func(key, what string, v any) error) (llm.Request, error) {
	var cfg compact.Config
	if b.Context == "" {
		return llm.Request{}, fmt.Errorf("the summary call recorded no context config")
	}
	if err := decode(b.Context, "context manager's config", &cfg); err != nil {
		return llm.Request{}, err
	}
	prompt, err := text(b.System, "summariser's prompt")
	if err != nil {
		return llm.Request{}, err
	}
	if active, _ := ActiveCompaction(path, msgs); active != nil {
		msgs = compact.Apply(msgs, active, "")
	}
	req, _, _, err := compact.SummaryRequest("", msgs, b.Summary.Window, cfg)
	if err != nil {
		return llm.Request{}, fmt.Errorf("the summary request: %w", err)
	}
	if prompt != "" {
		req.Messages[0].Content = prompt
	}
	b.Settings.Apply(&req)
	return req, nil
}
