package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// CacheReadPrice is the price of a cached input token relative to an uncached one (Anthropic
// bills cache reads at 0.1×); BilledEq weighs the reusable prefix with it.
const CacheReadPrice = 0.1

// Totals are one policy's figures over one trajectory or over all of them.
type Totals struct {
	Calls int `json:"calls"`
	// Original is the input tokens as recorded (o200k, recounted); Sent what the policy sends.
	Original int `json:"original_tokens"`
	Sent     int `json:"sent_tokens"`
	// Prefix is the tokens of each request that are a byte-identical prefix (whole messages) of
	// the previous request: what a prompt cache can reuse.
	Prefix int `json:"prefix_tokens"`
	// BilledEq is Sent with the reusable prefix weighted at CacheReadPrice (writes unweighted);
	// OriginalBilledEq the same for the requests as recorded.
	BilledEq         float64 `json:"billed_eq_tokens"`
	OriginalBilledEq float64 `json:"original_billed_eq_tokens"`
	Moves            int     `json:"moves"` // planned cache breaks
	// MissSteps counts calls whose reply refers to content the policy had compacted: Mentions
	// are distinctive identifiers in the reply that were in the recorded request but not in the
	// policy's; Rereads re-read a file or re-grep a pattern whose earlier output was compacted.
	MissSteps int `json:"miss_steps"`
	Mentions  int `json:"mentions"`
	Rereads   int `json:"rereads"`
}

// Reduction is the share of the original input tokens the policy does not send.
func (t Totals) Reduction() float64 { return ratio(t.Original-t.Sent, t.Original) }

// CostCut is the share of the cache-weighted cost of the requests as recorded that the policy
// does not spend (negative when it costs more).
func (t Totals) CostCut() float64 {
	if t.OriginalBilledEq == 0 {
		return 0
	}
	return 1 - t.BilledEq/t.OriginalBilledEq
}

// CacheShare is the share of the sent tokens a prompt cache can reuse.
func (t Totals) CacheShare() float64 { return ratio(t.Prefix, t.Sent) }

// MissRate is the share of calls with a miss.
func (t Totals) MissRate() float64 { return ratio(t.MissSteps, t.Calls) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (t *Totals) add(o Totals) {
	t.Calls += o.Calls
	t.Original += o.Original
	t.Sent += o.Sent
	t.Prefix += o.Prefix
	t.BilledEq += o.BilledEq
	t.OriginalBilledEq += o.OriginalBilledEq
	t.Moves += o.Moves
	t.MissSteps += o.MissSteps
	t.Mentions += o.Mentions
	t.Rereads += o.Rereads
}

// ReplayOptions configure Replay.
type ReplayOptions struct {
	// DumpDir, when set, receives every request each policy would send, as JSON:
	// DIR/<policy>/<trajectory>/<call>.json (an llm.Request, messages only).
	DumpDir string
}

// ReplayResult is one trajectory under one policy.
type ReplayResult struct {
	Trajectory string `json:"trajectory"`
	Format     string `json:"format"`
	Reported   int    `json:"reported_input_tokens,omitempty"`
	Totals
}

// PolicyReport is one policy over all trajectories.
type PolicyReport struct {
	Policy string         `json:"policy"`
	Skip   string         `json:"skip,omitempty"`
	Runs   []ReplayResult `json:"runs,omitempty"`
	Total  Totals         `json:"total"`
}

// ReplayReport is the side-by-side comparison `tofu eval replay` prints.
type ReplayReport struct {
	Policies []PolicyReport `json:"policies"`
	// Skipped are the files (or policy runs) that could not be replayed, with the reason.
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Replay runs every policy over every trajectory.
func Replay(trajs []*Trajectory, policies []Policy, opts ReplayOptions) (ReplayReport, error) {
	var rep ReplayReport
	origText := make([][]string, len(trajs)) // per trajectory, per call: the recorded request's text
	for _, p := range policies {
		pr := PolicyReport{Policy: p.Name, Skip: p.Skip}
		if p.Skip != "" {
			rep.Policies = append(rep.Policies, pr)
			continue
		}
		for ti, t := range trajs {
			if origText[ti] == nil {
				origText[ti] = requestTexts(t)
			}
			run, err := p.safeRun(t)
			if err != nil {
				rep.Skipped = append(rep.Skipped, Skipped{File: t.Name, Reason: p.Name + ": " + err.Error()})
				continue
			}
			res := ReplayResult{Trajectory: t.Name, Format: t.Format, Reported: t.Reported}
			res.Totals = measure(t, run, origText[ti])
			if opts.DumpDir != "" {
				if err := dump(filepath.Join(opts.DumpDir, p.Name, t.Name), run.reqs); err != nil {
					return rep, err
				}
			}
			pr.Runs = append(pr.Runs, res)
			pr.Total.add(res.Totals)
		}
		rep.Policies = append(rep.Policies, pr)
	}
	return rep, nil
}

// safeRun runs the policy on one trajectory; a panic on an odd file becomes an error, so it is
// reported as skipped instead of ending the whole replay.
func (p Policy) safeRun(t *Trajectory) (run policyRun, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("replay failed: %v", r)
		}
	}()
	run = p.run(t)
	if len(run.reqs) != t.Calls() {
		return run, fmt.Errorf("policy built %d requests for %d calls", len(run.reqs), t.Calls())
	}
	return run, nil
}

// cachedPrefix is the tokens of the leading whole messages of msgs identical to prev's: what a
// prompt cache can reuse.
func cachedPrefix(prev, msgs []llm.Message) int {
	p := 0
	for i := 0; i < len(prev) && i < len(msgs) && sameMessage(prev[i], msgs[i]); i++ {
		p += compact.MessageTokens(msgs[i])
	}
	return p
}

// measure counts one policy run: tokens, reusable prefixes and misses.
func measure(t *Trajectory, run policyRun, orig []string) Totals {
	tot := Totals{Calls: t.Calls(), Moves: run.moves}
	var prev, prevOrig []llm.Message
	for k, msgs := range run.reqs {
		req := t.Request(k)
		original := tokens.CountRequest(llm.Request{Messages: req})
		tot.Original += original
		op := cachedPrefix(prevOrig, req)
		tot.OriginalBilledEq += float64(original-op) + CacheReadPrice*float64(op)
		prevOrig = req
		sent := tokens.CountRequest(llm.Request{Messages: msgs})
		tot.Sent += sent
		p := cachedPrefix(prev, msgs)
		tot.Prefix += p
		tot.BilledEq += float64(sent-p) + CacheReadPrice*float64(p)
		prev = msgs
		if reply, ok := t.Reply(k); ok {
			mentions, rereads := misses(t, k, msgs, reply, orig[k])
			tot.Mentions += mentions
			tot.Rereads += rereads
			if mentions+rereads > 0 {
				tot.MissSteps++
			}
		}
	}
	return tot
}

// requestTexts returns, per call, the text of the recorded request (for mention checks).
func requestTexts(t *Trajectory) []string {
	out := make([]string, t.Calls())
	for k := range t.Reqs {
		out[k] = joinText(t.Request(k))
	}
	return out
}

func joinText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
		b.WriteByte('\n')
		for _, c := range m.ToolCalls {
			b.Write(c.Arguments)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// misses counts how the reply to call k refers to content the policy's request did not show:
// identifiers that were in the recorded request and are missing from the policy's, and re-reads
// (same file, same grep pattern) of an output the policy had compacted.
func misses(t *Trajectory, k int, msgs []llm.Message, reply llm.Message, orig string) (mentions, rereads int) {
	req := t.Request(k)
	shown := map[string]bool{} // outputs the policy's request shows whole
	for _, m := range msgs {
		if compact.IsToolResult(m) {
			shown[m.Content] = true
		}
	}
	var changed []int
	for i := range msgs {
		// A re-read sent as a reference to the same output shown whole elsewhere hides nothing.
		if msgs[i].Content != req[i].Content && !shown[req[i].Content] {
			changed = append(changed, i)
		}
	}
	if len(changed) == 0 {
		return 0, 0
	}
	sent := joinText(msgs)
	for _, w := range compact.Names(joinText([]llm.Message{reply})) {
		if strings.Contains(orig, w) && !strings.Contains(sent, w) {
			mentions++
		}
	}
	var want []target
	for _, c := range compact.Commands(reply) {
		for _, x := range targets(c) {
			if !slices.Contains(want, x) {
				want = append(want, x)
			}
		}
	}
	if len(want) == 0 {
		return mentions, 0
	}
	done := make([]bool, len(want))
	for _, i := range changed {
		if !compact.IsToolResult(req[i]) {
			continue
		}
		for _, c := range producer(req, i) {
			for _, had := range targets(c) {
				for w, x := range want {
					if !done[w] && x.overlaps(had) {
						rereads++
						done[w] = true
					}
				}
			}
		}
	}
	return mentions, rereads
}

// producer returns the commands of the call whose output conv[i] is.
func producer(conv []llm.Message, i int) []string {
	for j := i - 1; j >= 0; j-- {
		if conv[j].Role == llm.RoleAssistant {
			return compact.Commands(conv[j])
		}
	}
	return nil
}

var (
	cmdSep    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`&&|\|\||;|\|`) })
	sedRange  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`sed -n ['"]?(\d+),(\d+)p`) })
	viewRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--view_range (\d+) (-?\d+)`) })
	headLines = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`head -n? ?(\d+)`) })
	redirect  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`>\s*[^&\s]`) })
)

// target is what a command reads: a file (key "read:PATH") and a line range (hi 0: all of it),
// or a search ("grep:PATTERN").
type target struct {
	key    string
	lo, hi int
}

func (a target) overlaps(b target) bool {
	return a.key == b.key && (a.hi == 0 || b.hi == 0 || (a.lo <= b.hi && b.lo <= a.hi))
}

// targets returns what a command reads: files viewed (cat, sed -n, head, nl, view; with the
// line range when it says one) and grep patterns (the first argument that is not an option).
// A heredoc's body and commands that write (a redirection) read nothing.
func targets(cmd string) []target {
	if strings.Contains(cmd, "<<") {
		cmd, _, _ = strings.Cut(cmd, "\n")
	}
	lo, hi := 0, 0
	if m := sedRange().FindStringSubmatch(cmd); m != nil {
		lo, hi = atoi(m[1]), atoi(m[2])
	} else if m := viewRange().FindStringSubmatch(cmd); m != nil {
		lo, hi = atoi(m[1]), atoi(m[2])
		if hi < 0 {
			hi = 0
		}
	} else if m := headLines().FindStringSubmatch(cmd); m != nil {
		lo, hi = 1, atoi(m[1])
	}
	var out []target
	for _, seg := range cmdSep().Split(cmd, -1) {
		if redirect().MatchString(strings.NewReplacer("2>&1", "", "2>/dev/null", "", ">/dev/null", "").Replace(seg)) {
			continue
		}
		f := strings.Fields(seg)
		if len(f) < 2 {
			continue
		}
		switch compact.CommandTool(strings.Join(f, " ")) {
		case "read_files":
			for _, a := range f[1:] {
				if !strings.HasPrefix(a, "-") && strings.ContainsAny(a, "./") && !strings.ContainsAny(a, "'\",()") {
					out = append(out, target{"read:" + strings.TrimPrefix(a, "/testbed/"), lo, hi})
				}
			}
		case "grep":
			if f[0] == "grep" || f[0] == "rg" || f[0] == "git" {
				for _, a := range f[1:] {
					if a != "grep" && !strings.HasPrefix(a, "-") {
						out = append(out, target{key: "grep:" + strings.Trim(a, `'"`)})
						break
					}
				}
			}
		}
	}
	return out
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// DumpedCall and DumpedMessage are the shape --dump-requests writes: llm.Message with each
// call's arguments as a JSON string, so their bytes (which the token count sees) survive the
// round trip exactly.
type DumpedCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments,omitempty"`
}

// DumpedMessage is one message of a dumped request.
type DumpedMessage struct {
	Role       llm.Role     `json:"role"`
	Content    string       `json:"content,omitempty"`
	Reasoning  string       `json:"reasoning,omitempty"`
	ToolCalls  []DumpedCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
	ToolName   string       `json:"tool_name,omitempty"`
}

// Message converts a dumped message back.
func (d DumpedMessage) Message() llm.Message {
	m := llm.Message{Role: d.Role, Content: d.Content, Reasoning: d.Reasoning, ToolCallID: d.ToolCallID, ToolName: d.ToolName}
	for _, c := range d.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: json.RawMessage(c.Arguments)})
	}
	return m
}

// dump writes each request as JSON under dir, one file per call: {"messages": [...]}.
func dump(dir string, reqs [][]llm.Message) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for k, msgs := range reqs {
		out := struct {
			Messages []DumpedMessage `json:"messages"`
		}{}
		for _, m := range msgs {
			d := DumpedMessage{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
			for _, c := range m.ToolCalls {
				d.ToolCalls = append(d.ToolCalls, DumpedCall{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
			}
			out.Messages = append(out.Messages, d)
		}
		b, err := json.MarshalIndent(out, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.json", k+1)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
