package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/store"
)

// Log is what the trace reads: a session's events, the parts its requests were built from
// besides the log, and the request bodies kept whole (calls recorded before requests could be
// built again).
type Log interface {
	Events(session string) ([]store.Event, error)
	RequestPart(key string) ([]byte, error)
	RequestBody(key string) ([]byte, error)
}

// Call is one model call of a session as the trace sees it.
type Call struct {
	N      int    // 1-based, in log order
	Seq    uint64 // the model_call event
	Report router.CallReport
	// Body is the request's bytes: rebuilt from the log (Rebuilt) or kept; nil when neither
	// (Err says why).
	Body    []byte
	Rebuilt bool
	Err     error
}

// IsSummary says c is a call of the L2 summariser (its request is the summary request, not the
// conversation's).
func (c Call) IsSummary() bool {
	p := c.Report.Request
	return p != nil && p.Built != nil && p.Built.Summary != nil
}

// Mismatch is the first call whose request does not agree with the log.
type Mismatch struct {
	Call int
	Seq  uint64
	What string
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("model call %d (event %d): %s", m.Call, m.Seq, m.What)
}

// Result is what Verify checked.
type Result struct {
	Calls    int // model calls in the log
	Verified int // calls whose request matched its fingerprint
	// Rebuilt are the calls (numbers) whose request was built again from the log and hashed;
	// KeptOnly those recorded before that, checked against their kept bytes only.
	Rebuilt, KeptOnly []int
	// From* are the rebuilt calls whose request used a recorded part that is not in the log
	// (each checked to hash to its blob's name): the system prompt, tool specs, the context
	// manager's config, a paper reader's passages.
	FromSystem, FromTools, FromContext, FromAugmented []int
	// Summaries are the rebuilt calls of the L2 summariser: each request built again from the
	// view up to its compaction, with the summariser's prompt and the context config taken
	// from their blobs.
	Summaries []int
	Formats   []string // the wire formats encoded again
	// Unsent are the calls refused before any request was sent (the client found it would
	// not fit the window): there were no bytes to fingerprint, so there is nothing to check.
	Unsent []int
}

// Calls reads a session's model calls with their request bodies: rebuilt from the log when the
// call recorded what it was built from, else the bytes kept.
func Calls(log Log, session string) ([]Call, []store.Event, error) {
	events, err := log.Events(session)
	if err != nil {
		return nil, nil, fmt.Errorf("read session %s: %w", session, err)
	}
	var calls []Call
	rb := agent.NewRebuilder(events, log.RequestPart)
	for _, e := range events {
		if e.Type != store.EventModelCall {
			continue
		}
		c := Call{N: len(calls) + 1, Seq: e.Seq}
		if err := e.Decode(&c.Report); err != nil {
			return nil, nil, err
		}
		switch p := c.Report.Request; {
		case p == nil:
		case p.Built != nil:
			c.Body, c.Err = rebuild(rb, p)
			c.Rebuilt = c.Err == nil
		case p.Blob != "":
			c.Body, c.Err = log.RequestBody(p.Blob)
		}
		calls = append(calls, c)
	}
	return calls, events, nil
}

// rebuild builds a call's request again from the log and encodes it as its client did.
func rebuild(rb *agent.Rebuilder, p *router.RequestPrint) ([]byte, error) {
	req, err := rb.Rebuild(p.Built)
	if err != nil {
		return nil, err
	}
	return encode(p.Format, req, p.Built.Params)
}

// Verify rebuilds every model call's request from the log and checks it against the
// fingerprint the call recorded: the conversation is projected from the log as the turn did,
// with the L2 summary and the L1 view the context manager had, between the system prompt and
// tool specs the call recorded (blobs named by their hash), and encoded again by the provider
// client's encoder; its sha256 and length must be the recorded ones. A call recorded before
// requests could be rebuilt is checked against its kept bytes, which must carry the user
// messages the log holds before it. The first call that does not agree is returned as a
// *Mismatch.
func Verify(log Log, session string) (Result, error) {
	calls, events, err := Calls(log, session)
	if err != nil {
		return Result{}, err
	}
	res := Result{Calls: len(calls)}
	onPath := map[uint64]bool{}
	for _, e := range store.ActivePath(events) {
		onPath[e.Seq] = true
	}
	for _, c := range calls {
		p := c.Report.Request
		switch {
		case p == nil && neverSent(c.Report):
			res.Unsent = append(res.Unsent, c.N)
			continue
		case p == nil:
			return res, &Mismatch{c.N, c.Seq, "no fingerprint recorded (a log from before traces, or the event was edited)"}
		case p.Built != nil && c.Err != nil:
			return res, &Mismatch{c.N, c.Seq, "the request could not be rebuilt: " + c.Err.Error()}
		case c.Body == nil && c.Err != nil:
			return res, &Mismatch{c.N, c.Seq, "the request's bytes are not kept (blob " + p.Blob + "): " + c.Err.Error()}
		case c.Body == nil:
			return res, &Mismatch{c.N, c.Seq, "the request was neither kept nor recorded so it can be rebuilt"}
		}
		sum := sha256.Sum256(c.Body)
		got := hex.EncodeToString(sum[:])
		if got != p.SHA256 {
			what := "the kept request"
			if c.Rebuilt {
				what = fmt.Sprintf("the request rebuilt from the log (events up to %d)", p.Built.Upto)
			}
			return res, &Mismatch{c.N, c.Seq, fmt.Sprintf("%s hashes to %s, the call recorded %s", what, got, p.SHA256)}
		}
		if len(c.Body) != p.Bytes {
			return res, &Mismatch{c.N, c.Seq, fmt.Sprintf("the request is %d bytes, the call recorded %d", len(c.Body), p.Bytes)}
		}
		if c.Rebuilt {
			res.note(c.N, p)
		} else {
			if onPath[c.Seq] {
				if what := conversationDiffers(c, events); what != "" {
					return res, &Mismatch{c.N, c.Seq, what}
				}
			}
			res.KeptOnly = append(res.KeptOnly, c.N)
		}
		res.Verified++
	}
	return res, nil
}

// neverSent says a call without a fingerprint failed before any request left Tofu: the client
// hands the request to the fingerprint before sending it, so a call that sent one has it. Its
// every attempt failed with no answer at all (no HTTP status, no event). A call that got an
// answer, or ended well, must have a fingerprint.
func neverSent(r router.CallReport) bool {
	if r.Outcome == "ok" || r.Outcome == "stopped" || r.Sent() == 0 {
		return false
	}
	for _, a := range r.Attempts {
		if !a.Skipped && (a.Fault == "" || a.Status != 0 || a.Events != 0) {
			return false
		}
	}
	return true
}

// note records what the rebuilt call n was built from.
func (r *Result) note(n int, p *router.RequestPrint) {
	b := p.Built
	r.Rebuilt = append(r.Rebuilt, n)
	if !slices.Contains(r.Formats, p.Format) {
		r.Formats = append(r.Formats, p.Format)
	}
	if b.Summary != nil {
		r.Summaries = append(r.Summaries, n)
		return
	}
	for _, x := range []struct {
		set  bool
		list *[]int
	}{{b.System != "", &r.FromSystem}, {b.Tools != "", &r.FromTools}, {b.Context != "", &r.FromContext},
		{b.Augmented != "", &r.FromAugmented}} {
		if x.set {
			*x.list = append(*x.list, n)
		}
	}
}

// conversationDiffers compares the user messages the log holds before call c (on the active
// path, since the last compaction) with those of the request, in order; "" when they agree.
func conversationDiffers(c Call, events []store.Event) string {
	w, err := decodeWire(c.Body)
	if err != nil {
		return err.Error()
	}
	var sent []string
	for _, m := range w.Messages {
		if m.Role == "user" {
			sent = append(sent, m.text())
		}
	}
	want := userTexts(events, c.Seq)
	i := 0
	for _, u := range want {
		for i < len(sent) && !strings.Contains(sent[i], u.text) {
			i++
		}
		if i == len(sent) {
			return fmt.Sprintf("the user message of event %d is not in the request: the log says %q", u.seq, clip(u.text))
		}
		i++
	}
	return ""
}

type userText struct {
	seq  uint64
	text string
}

// userTexts are the user messages on the active path before seq and after the last
// compaction (earlier ones a summary stands for), each as the model read it: its English
// translation when translate-then-reason gave one.
func userTexts(events []store.Event, before uint64) []userText {
	path := store.ActivePath(events)
	translated := map[uint64]string{}
	var out []userText
	for _, e := range path {
		if e.Seq >= before {
			break
		}
		switch e.Type {
		case store.EventCompaction:
			out = nil
		case store.EventMessageTranslation:
			var t store.MessageTranslation
			if e.Decode(&t) == nil && t.Text != "" {
				translated[t.Of] = t.Text
			}
		case store.EventUser:
			var u store.UserMessage
			if e.Decode(&u) == nil && strings.TrimSpace(u.Text) != "" {
				out = append(out, userText{e.Seq, u.Text})
			}
		}
	}
	for i, u := range out {
		if t, ok := translated[u.seq]; ok {
			out[i].text = t
		}
	}
	return out
}

func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}
