package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/store"
)

// Log is what the trace reads: a session's events and the request bodies kept beside them.
type Log interface {
	Events(session string) ([]store.Event, error)
	RequestBody(key string) ([]byte, error)
}

// Call is one model call of a session as the trace sees it.
type Call struct {
	N      int    // 1-based, in log order
	Seq    uint64 // the model_call event
	Report router.CallReport
	Body   []byte // the request's bytes, nil when not kept
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
	Verified int // calls whose bytes were rebuilt and matched
}

// Calls reads a session's model calls with their request bodies.
func Calls(log Log, session string) ([]Call, []store.Event, error) {
	events, err := log.Events(session)
	if err != nil {
		return nil, nil, fmt.Errorf("read session %s: %w", session, err)
	}
	var calls []Call
	for _, e := range events {
		if e.Type != store.EventModelCall {
			continue
		}
		c := Call{N: len(calls) + 1, Seq: e.Seq}
		if err := e.Decode(&c.Report); err != nil {
			return nil, nil, err
		}
		if p := c.Report.Request; p != nil && p.Blob != "" {
			if b, err := log.RequestBody(p.Blob); err == nil {
				c.Body = b
			}
		}
		calls = append(calls, c)
	}
	return calls, events, nil
}

// Verify rebuilds every model call's request from the log and checks it: the bytes kept for
// it hash to the fingerprint the call recorded, and the request carries the conversation the
// log holds before it (each user message since the last compaction, as the model was given
// it). The first call that does not agree is returned as a *Mismatch.
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
		case p == nil:
			return res, &Mismatch{c.N, c.Seq, "no fingerprint recorded (a log from before traces, or the event was edited)"}
		case c.Body == nil:
			return res, &Mismatch{c.N, c.Seq, "the request's bytes are not kept (blob " + p.Blob + " missing)"}
		}
		sum := sha256.Sum256(c.Body)
		if got := hex.EncodeToString(sum[:]); got != p.SHA256 {
			return res, &Mismatch{c.N, c.Seq, fmt.Sprintf("the request rebuilt from the log hashes to %s, the call recorded %s", got, p.SHA256)}
		}
		if len(c.Body) != p.Bytes {
			return res, &Mismatch{c.N, c.Seq, fmt.Sprintf("the request is %d bytes, the call recorded %d", len(c.Body), p.Bytes)}
		}
		if onPath[c.Seq] {
			if what := conversationDiffers(c, events); what != "" {
				return res, &Mismatch{c.N, c.Seq, what}
			}
		}
		res.Verified++
	}
	return res, nil
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
