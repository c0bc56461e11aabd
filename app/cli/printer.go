package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/wording"
)

// printer writes a run to the terminal: the reply as it streams, tool calls and results as
// one-line notes on stderr; or, with --json, every durable event as a JSON line.
type printer struct {
	mu      sync.Mutex
	out     io.Writer
	errOut  io.Writer
	json    bool
	midLine bool
	carry   runeCarry // the model's text is escaped for the terminal (termsafe.go)
	usage   usageTotal
	decided *decisions // approvals decided, for the prompts (prompt.go)
}

func newPrinter(out, errOut io.Writer, asJSON bool) *printer {
	return &printer{out: out, errOut: errOut, json: asJSON, decided: &decisions{}}
}

func (p *printer) Delta(text, _ string) {
	if p.json || text == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	io.WriteString(p.out, p.carry.next(text))
	p.midLine = !strings.HasSuffix(text, "\n")
}

func (p *printer) Reset(reason string) {
	if !p.json {
		p.note("[connection dropped, retrying: %s]", termText(reason))
	}
}

func (p *printer) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.midLine {
		fmt.Fprintln(p.out, p.carry.flush())
		p.midLine = false
	}
	fmt.Fprintf(p.errOut, format+"\n", args...)
}

func (p *printer) event(ev store.Event) {
	if p.json {
		b, _ := json.Marshal(ev)
		b = store.PlainJSON(b) // what the model wrote: && stays &&
		p.mu.Lock()
		fmt.Fprintf(p.out, "%s\n", b)
		var u llm.Usage
		if ev.Type == store.EventUsage && ev.Decode(&u) == nil {
			p.usage.add(u) // for the summary line that ends the run
		}
		p.mu.Unlock()
		return
	}
	switch ev.Type {
	case store.EventAssistant:
		var m store.AssistantMessage
		ev.Decode(&m)
		for _, c := range m.ToolCalls {
			p.note("→ %s %s", termLine(c.Name), termLine(wording.ClipLine(string(store.PlainJSON(c.Arguments)), 160)))
		}
	case store.EventMessageTranslation:
		// The reply streamed in English; its translation into the user's language follows it
		// on stdout. A translation that failed says so on stderr.
		var tr store.MessageTranslation
		if ev.Decode(&tr) != nil {
			break
		}
		if tr.Fallback != "" {
			p.note("[translation: %s]", termText(tr.Fallback))
		} else if tr.To != "en" {
			p.note("[the reply in %s:]", termLine(tr.To))
			p.mu.Lock()
			fmt.Fprintln(p.out, termText(tr.Text))
			p.mu.Unlock()
		} else {
			p.note("[translated from %s for the model]", termLine(tr.From))
		}
	case store.EventToolResult:
		var r store.ToolResult
		ev.Decode(&r)
		mark := "✓"
		if r.IsError {
			mark = "✗"
		}
		p.note("  %s %s: %s", mark, termLine(r.Name), termLine(wording.ClipLine(firstLine(r.Text), 120)))
	case store.EventApproval:
		var a store.Approval
		ev.Decode(&a)
		if a.Decision != "" {
			if p.decided.decide(a.CallID) {
				// Decided elsewhere while its prompt waited: end the prompt's line.
				p.mu.Lock()
				fmt.Fprintln(p.errOut)
				p.mu.Unlock()
			}
			p.note("  approval: %s %s (%s, by %s)", termLine(string(a.Decision)), termLine(a.Subject), termLine(a.Name), termLine(string(a.By)))
		}
	case store.EventUsage:
		var u llm.Usage
		if ev.Decode(&u) == nil {
			p.mu.Lock()
			p.usage.add(u)
			p.mu.Unlock()
		}
	case store.EventError:
		var e store.ErrorInfo
		ev.Decode(&e)
		p.note("error: %s", termText(e.Message))
		if e.Hint != "" {
			p.note("hint: %s", termText(e.Hint))
		}
	case store.EventFallback:
		var f store.Fallback
		ev.Decode(&f)
		p.note("[%s]", termLine(f.Notice()))
	case store.EventCallCorrection:
		var c store.CallCorrection
		ev.Decode(&c)
		p.note("[the model printed a tool call as text (%s), not run: %s; asked it to send the call properly (%d of %d)]",
			termLine(c.Format), termLine(c.Reason), c.Attempt, c.Max)
	case store.EventPhase:
		var ph store.Phase
		ev.Decode(&ph)
		if line := phaseNote(ph); line != "" {
			p.note("%s", termText(line))
		}
	case store.EventToolProgress:
		var tp store.ToolProgress
		if ev.Decode(&tp) == nil {
			p.note("  … %s", termLine(progressNote(tp)))
		}
	}
}

// progressNote is a running call's progress as one line: "3/10 · message", "3 · message"
// without a total.
func progressNote(tp store.ToolProgress) string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	var parts []string
	switch {
	case tp.Total > 0:
		parts = append(parts, num(tp.Progress)+"/"+num(tp.Total))
	case tp.Progress > 0:
		parts = append(parts, num(tp.Progress))
	}
	if m := strings.TrimSpace(tp.Message); m != "" {
		parts = append(parts, wording.ClipLine(firstLine(m), 160))
	}
	if len(parts) == 0 {
		return "working"
	}
	return strings.Join(parts, " · ")
}

func (p *printer) finish(session string, end agent.End) {
	if p.json {
		p.mu.Lock()
		b, _ := json.Marshal(p.usage.summary(session, string(end.Reason), end.Steps))
		fmt.Fprintf(p.out, "%s\n", b)
		p.mu.Unlock()
		return
	}
	p.note("(session %s: %s after %d step(s))", session, end.Reason, end.Steps)
	p.mu.Lock()
	line := p.usage.line()
	p.mu.Unlock()
	if line != "" {
		p.note("%s", line)
	}
}

// phaseNote is the terminal's line for an autonomous run's phase event ("" for none).
func phaseNote(ph store.Phase) string {
	switch {
	case ph.State == store.PhaseStart && ph.Role == store.RolePlanner && ph.Iteration > 1:
		return "── planner (replan) ──"
	case ph.State == store.PhaseStart && ph.Role == store.RoleWorker:
		return fmt.Sprintf("── worker · round %d ──", ph.Iteration)
	case ph.State == store.PhaseStart:
		return fmt.Sprintf("── %s ──", ph.Role)
	case ph.Role == store.RoleCritic:
		line := "── critic: " + string(ph.Verdict)
		if ph.Claimed != "" {
			line += " (" + string(ph.Claimed) + " not accepted: " + ph.Gate + ")"
		}
		if f := firstLine(ph.Feedback); f != "" {
			line += " — " + wording.ClipLine(f, 120)
		}
		return line + " ──"
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
