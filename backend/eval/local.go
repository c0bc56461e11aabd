package eval

// `tofu eval local`: recorded trajectories through the context manager against a real Ollama
// server, measuring what its KV cache serves. Each request is the bytes Tofu's provider sends
// (ollama.Encode, num_ctx from the window plan), asked for one token; the server says how long
// the prompt was (prompt_eval_count, the whole prompt on every release checked) and how long
// its prefill took; how much of it came from the cache is what its runner logs when it loads a
// cache slot (OLLAMA_DEBUG=1).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

var debugLocal = os.Getenv("TOFU_EVAL_LOCAL_DEBUG") != ""

// LocalWindow is the num_ctx the eval runs its model with: the generated model's context, and
// the cap Tofu puts on local windows (ollama.DefaultContextCap).
const LocalWindow = 32768

// LocalOptions configure Local.
type LocalOptions struct {
	// URL is a running server; empty starts the tests' real server (Bin) with a generated model.
	URL string
	// Bin is the ollama executable to start when URL is empty.
	Bin string
	// LogFile, with URL, is that server's log (started with OLLAMA_DEBUG=1): the evaluated
	// tokens are read from it. Without it they are unknown (-1) and only times are reported.
	LogFile string
	// Model is the model to run (with URL: required; started: the generated one).
	Model string
	// Window is num_ctx (default LocalWindow).
	Window int
	// Steps cuts each trajectory to its first Steps calls (0: all); Sessions is how many
	// trajectories are replayed (default 3: the swarm runs them at once).
	Steps    int
	Sessions int
	// SummaryEvery is how many steps of the main session pass between two calls of the summary
	// model in the summary mode (default 4).
	SummaryEvery int
	// Modes are the runs to make, of LocalModes (empty: all): a long session under every mode
	// takes hours on a small machine, so they can be run one at a time.
	Modes []string
	// Offline replays without a server (offlineCache): the single-session modes, in o200k
	// tokens.
	Offline bool
	// Progress, when set, receives a line per session.
	Progress io.Writer
}

// LocalModes are the runs Local makes: each session alone under each policy, the sessions at
// once under the local policy (swarm: on a server with a slot each; swarm1: on one with a single
// slot, the default of v0.17), one session with summary-model calls in between.
var LocalModes = []string{"naive", "hosted", "local", "swarm", "swarm1", "summary"}

func (o LocalOptions) runs(mode string) bool {
	return len(o.Modes) == 0 || slices.Contains(o.Modes, mode)
}

// LocalStep is one request of a session.
type LocalStep struct {
	Session string `json:"session"`
	Step    int    `json:"step"`
	// Sent is the request's o200k tokens as Tofu counts them.
	Sent int `json:"sent_tokens"`
	// Prompt is prompt_eval_count: the whole prompt, in the model's tokens.
	Prompt int `json:"prompt_tokens"`
	// Evaluated is what the server prefilled (not found in its cache); -1 when unknown.
	Evaluated int `json:"evaluated_tokens"`
	// Growth is what the prompt grew by since the session's previous request: the least a cache
	// can leave to prefill.
	Growth    int     `json:"growth_tokens"`
	PrefillMS float64 `json:"prefill_ms"` // prompt_eval_duration
	TTFTMS    float64 `json:"ttft_ms"`    // request sent to first streamed chunk
	// ServerMS is the server's time outside the model: total_duration less the load, the
	// prefill and the generation (templating and tokenizing the prompt, the queue).
	ServerMS float64 `json:"server_ms"`
	Messages int     `json:"messages"` // the request's messages
	Moved    bool    `json:"moved,omitempty"`
	Summary  bool    `json:"summary,omitempty"` // a call of the summary model, not of the session
}

// LocalTotals sum a run's session steps (summary calls excluded).
type LocalTotals struct {
	Steps     int     `json:"steps"`
	Sent      int     `json:"sent_tokens"`
	Prompt    int     `json:"prompt_tokens"`
	Evaluated int     `json:"evaluated_tokens"`
	Growth    int     `json:"growth_tokens"`
	PrefillMS float64 `json:"prefill_ms"`
	Moves     int     `json:"moves"`
	Known     bool    `json:"evaluated_known"`
}

// CacheShare is the share of prompt tokens the server served from its cache.
func (t LocalTotals) CacheShare() float64 {
	if !t.Known {
		return -1
	}
	return 1 - ratio(t.Evaluated, t.Prompt)
}

// Limit is the best CacheShare: every step prefills only what its prompt grew by.
func (t LocalTotals) Limit() float64 { return 1 - ratio(t.Growth, t.Prompt) }

// LocalRun is one mode under one policy.
type LocalRun struct {
	Mode     string `json:"mode"` // single, swarm, summary
	Policy   string `json:"policy"`
	Parallel int    `json:"num_parallel,omitempty"` // the server's OLLAMA_NUM_PARALLEL (0: not known)
	// Stopped names the sessions that reached the window plan's summary threshold before their
	// last call: the rest of each was not replayed (L2 is not part of this eval).
	Stopped []string    `json:"stopped,omitempty"`
	Steps   []LocalStep `json:"steps"`
	Total   LocalTotals `json:"total"`
}

// TTFTPoint is the median time to first token of the steps whose evaluated tokens fall in
// [From, To), split by how long the session's prompt was.
type TTFTPoint struct {
	From, To int
	// By prompt size band (LocalBands): median ms and the number of steps (0: none).
	MS    []float64 `json:"ms"`
	Count []int     `json:"count"`
}

// LocalBands are the prompt sizes (model tokens) TTFT is split by.
var LocalBands = []int{0, 4096, 12288, 1 << 30}

// LocalReport is what `tofu eval local` prints.
type LocalReport struct {
	Server string     `json:"server"`
	Model  string     `json:"model"`
	Window int        `json:"window"`
	Runs   []LocalRun `json:"runs"`
	// Sessions are the totals of each session of the single-session runs: the share of one
	// session, its limit, and the worst one.
	Sessions []LocalSession `json:"sessions"`
	// The headline figures: the local policy, one session at a time (-1: not run).
	StepsN          int     `json:"steps"`
	PromptTokens    int     `json:"prompt_tokens"`
	EvaluatedTokens int     `json:"evaluated_tokens"`
	CacheShare      float64 `json:"cache_share"`
	CacheLimit      float64 `json:"cache_share_limit"`
	CacheShare3     float64 `json:"cache_share_3"`
	// CacheShare3Slot1 is the same three sessions on a server with one slot (-1: not run).
	CacheShare3Slot1 float64 `json:"cache_share_3_one_slot"`
	NaiveCacheShare  float64 `json:"naive_cache_share"`
	// HostedCacheShare is the hosted-cache policy (compact.Defaults) on the same server.
	HostedCacheShare float64 `json:"hosted_cache_share"`
	// SummaryCacheShare is the local policy with summary-model calls in between, per
	// OLLAMA_NUM_PARALLEL of the server it ran on ("0": a running server, not known).
	SummaryCacheShare map[string]float64 `json:"summary_cache_share"`
	TTFT              []TTFTPoint        `json:"ttft"`
}

// LocalSession is one session's totals under one policy.
type LocalSession struct {
	Policy  string      `json:"policy"`
	Session string      `json:"session"`
	Total   LocalTotals `json:"total"`
	Share   float64     `json:"cache_share"`
	Limit   float64     `json:"cache_share_limit"`
}

// localServer is a server to run sessions on.
type localServer struct {
	url      string
	parallel int
	log      func() (string, error) // nil: evaluated tokens unknown
	http     *http.Client
	api      *api.Client
	slots    *slotLog
	offline  *offlineCache // set: no server, whole messages served from the previous request
}

func newLocalServer(base string, parallel int, log func() (string, error)) (*localServer, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("ollama URL %q: %w", base, err)
	}
	hc := &http.Client{}
	s := &localServer{url: base, parallel: parallel, log: log, http: hc, api: api.NewClient(u, hc)}
	if log != nil {
		s.slots = &slotLog{read: log}
	}
	return s, nil
}

// policy is one of the three context policies the eval compares.
type localPolicy struct {
	name string
	cfg  compact.Config
}

func localPolicies(window int) []localPolicy {
	return []localPolicy{
		{"naive", compact.Off()},
		{"hosted", compact.Defaults()},
		{"local", compact.Local(compact.Defaults(), window)},
	}
}

// Local replays trajs (cut as opts say) against the server: every session alone under each
// policy, then the local policy with all sessions at once, then with summary-model calls in
// between. servers are the servers to run on: the first takes every mode; the summary mode runs
// on each (they differ in OLLAMA_NUM_PARALLEL).
func Local(ctx context.Context, trajs []*Trajectory, servers []*localServer, model string, opts LocalOptions) (LocalReport, error) {
	window := opts.Window
	rep := LocalReport{Server: servers[0].url, Model: model, Window: window, SummaryCacheShare: map[string]float64{}}
	pols := localPolicies(window)
	main := servers[0]
	byName := map[string]LocalTotals{}
	for _, p := range pols {
		if !opts.runs(p.name) {
			continue
		}
		run := LocalRun{Mode: "single", Policy: p.name, Parallel: main.parallel}
		for _, t := range trajs {
			if err := main.unload(ctx, model); err != nil {
				return rep, err
			}
			steps, stopped, err := main.session(ctx, model, window, t, p.cfg, 0, opts.Progress)
			if err != nil {
				return rep, fmt.Errorf("%s, %s: %w", p.name, t.Name, err)
			}
			run.add(steps, stopped)
			var one LocalRun
			one.add(steps, "")
			rep.Sessions = append(rep.Sessions, LocalSession{Policy: p.name, Session: t.Name, Total: one.Total,
				Share: one.Total.CacheShare(), Limit: one.Total.Limit()})
		}
		byName[p.name] = run.Total
		rep.Runs = append(rep.Runs, run)
	}
	local := pols[2]
	rep.CacheShare, rep.CacheLimit, rep.NaiveCacheShare, rep.HostedCacheShare, rep.CacheShare3, rep.CacheShare3Slot1 = -1, -1, -1, -1, -1, -1
	if opts.runs("swarm") {
		swarm, err := main.swarm(ctx, model, window, trajs, local.cfg, opts.Progress)
		if err != nil {
			return rep, err
		}
		rep.Runs = append(rep.Runs, swarm)
		rep.CacheShare3 = swarm.Total.CacheShare()
	}
	if opts.runs("swarm1") {
		one := servers[len(servers)-1]
		if one.parallel != 1 {
			return rep, errors.New("swarm1 needs a server with one slot: run it on the started servers")
		}
		swarm, err := one.swarm(ctx, model, window, trajs, local.cfg, opts.Progress)
		if err != nil {
			return rep, err
		}
		rep.Runs = append(rep.Runs, swarm)
		rep.CacheShare3Slot1 = swarm.Total.CacheShare()
	}
	for _, s := range servers {
		if !opts.runs("summary") {
			break
		}
		run := LocalRun{Mode: "summary", Policy: local.name, Parallel: s.parallel}
		if err := s.unload(ctx, model); err != nil {
			return rep, err
		}
		steps, stopped, err := s.session(ctx, model, window, trajs[0], local.cfg, max(opts.SummaryEvery, 1), opts.Progress)
		if err != nil {
			return rep, fmt.Errorf("summary, %s: %w", trajs[0].Name, err)
		}
		run.add(steps, stopped)
		rep.Runs = append(rep.Runs, run)
		rep.SummaryCacheShare[fmt.Sprint(s.parallel)] = run.Total.CacheShare()
	}
	if lt, ok := byName["local"]; ok {
		rep.StepsN, rep.PromptTokens, rep.EvaluatedTokens = lt.Steps, lt.Prompt, lt.Evaluated
		rep.CacheShare, rep.CacheLimit = lt.CacheShare(), lt.Limit()
	}
	if t, ok := byName["naive"]; ok {
		rep.NaiveCacheShare = t.CacheShare()
	}
	if t, ok := byName["hosted"]; ok {
		rep.HostedCacheShare = t.CacheShare()
	}
	rep.TTFT = ttftTable(rep.Runs)
	return rep, nil
}

// swarm runs every trajectory at once on s under cfg, from a cold server.
func (s *localServer) swarm(ctx context.Context, model string, window int, trajs []*Trajectory, cfg compact.Config, progress io.Writer) (LocalRun, error) {
	swarm := LocalRun{Mode: "swarm", Policy: "local", Parallel: s.parallel}
	if err := s.unload(ctx, model); err != nil {
		return swarm, err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for _, t := range trajs {
		wg.Go(func() {
			steps, stopped, err := s.session(ctx, model, window, t, cfg, 0, progress)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("swarm, %s: %w", t.Name, err)
			}
			swarm.add(steps, stopped)
		})
	}
	wg.Wait()
	return swarm, firstErr
}

func (r *LocalRun) add(steps []LocalStep, stopped string) {
	if stopped != "" {
		r.Stopped = append(r.Stopped, stopped)
	}
	r.Steps = append(r.Steps, steps...)
	r.Total.Known = true
	for _, s := range steps {
		if s.Summary {
			continue
		}
		r.Total.Steps++
		r.Total.Sent += s.Sent
		r.Total.Prompt += s.Prompt
		r.Total.Growth += s.Growth
		r.Total.PrefillMS += s.PrefillMS
		if s.Moved {
			r.Total.Moves++
		}
		if s.Evaluated < 0 {
			r.Total.Known = false
		}
		r.Total.Evaluated += s.Evaluated
	}
}

// session replays one trajectory under cfg: each call's request built by the context manager
// (L0 at entry, L1 with one State across the run, as replay does), sent as Tofu sends it. It
// stops before a request past the window plan's summary threshold (named in stopped). With
// summaryEvery > 0, every summaryEvery steps a summary-model request goes to the same server
// between two of the session's.
func (s *localServer) session(ctx context.Context, model string, window int, t *Trajectory, cfg compact.Config, summaryEvery int, progress io.Writer) (steps []LocalStep, stopped string, err error) {
	threshold := compact.Threshold(window, cfg.L2)
	var st compact.State
	var l0 entry
	prev := 0
	start := time.Now()
	for k, req := range t.Reqs {
		if t.StepLimit > 0 {
			st.Left = max(t.StepLimit-k, 1)
		}
		msgs, rep := compact.Build(l0.entered(req, cfg), &st, cfg)
		sent := tokens.CountRequest(llm.Request{Messages: msgs})
		if sent > threshold {
			stopped = fmt.Sprintf("%s at call %d (%d tokens, threshold %d)", t.Name, k, sent, threshold)
			break
		}
		if summaryEvery > 0 && k > 0 && k%summaryEvery == 0 {
			sum, err := s.call(ctx, model, window, summaryRequest(msgs), 16)
			if err != nil {
				return steps, "", fmt.Errorf("summary call before %d: %w", k, err)
			}
			sum.Session, sum.Step, sum.Summary = t.Name, k, true
			steps = append(steps, sum)
		}
		step, err := s.call(ctx, model, window, msgs, 1)
		if progress != nil && debugLocal {
			fmt.Fprintf(progress, "  %s %d: %+v %v\n", t.Name, k, step, err)
		}
		if err != nil {
			return steps, "", fmt.Errorf("call %d: %w", k, err)
		}
		step.Session, step.Step, step.Sent, step.Moved, step.Messages = t.Name, k, sent, rep.Moved, len(msgs)
		step.Growth = max(step.Prompt-prev, 0)
		prev = step.Prompt
		steps = append(steps, step)
	}
	if progress != nil {
		fmt.Fprintf(progress, "eval local: %s: %d steps in %s\n", t.Name, len(steps), time.Since(start).Round(time.Millisecond))
	}
	return steps, stopped, nil
}

// summaryRequest is what the summary model is asked between two steps: compact's summary
// prompt over the history, each message clipped, as L2 sends it (its own range rules aside: a
// single-task session is one turn, which L2 keeps whole).
func summaryRequest(msgs []llm.Message) []llm.Message {
	var hist []byte
	for i, m := range msgs {
		if m.Role == llm.RoleSystem {
			continue
		}
		hist = fmt.Appendf(hist, "### [%d] %s\n%s\n\n", i, m.Role, clipText(m.Content, 300))
		if len(hist) > 24_000 {
			break
		}
	}
	return []llm.Message{
		{Role: llm.RoleSystem, Content: compact.SummaryPrompt},
		{Role: llm.RoleUser, Content: "## Conversation History to Compress\n\n" + string(hist)},
	}
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + " …"
}

// ttftTable buckets the single-session local steps by their evaluated tokens.
func ttftTable(runs []LocalRun) []TTFTPoint {
	edges := []int{0, 64, 256, 1024, 4096, 1 << 30}
	var out []TTFTPoint
	for i := 0; i+1 < len(edges); i++ {
		p := TTFTPoint{From: edges[i], To: edges[i+1]}
		for b := 0; b+1 < len(LocalBands); b++ {
			var ms []float64
			for _, r := range runs {
				if r.Mode != "single" || r.Policy != "local" {
					continue
				}
				for _, s := range r.Steps {
					if s.Evaluated >= p.From && s.Evaluated < p.To && s.Prompt >= LocalBands[b] && s.Prompt < LocalBands[b+1] {
						ms = append(ms, s.TTFTMS)
					}
				}
			}
			p.MS = append(p.MS, median(ms))
			p.Count = append(p.Count, len(ms))
		}
		out = append(out, p)
	}
	return out
}

// RunLocal is `tofu eval local`: it picks and cuts the trajectories, starts the servers (or
// uses opts.URL) and runs Local.
func RunLocal(ctx context.Context, trajs []*Trajectory, opts LocalOptions) (LocalReport, error) {
	if opts.Window <= 0 {
		opts.Window = LocalWindow
	}
	if opts.Sessions <= 0 {
		opts.Sessions = 3
	}
	if opts.SummaryEvery <= 0 {
		opts.SummaryEvery = 4
	}
	for _, m := range opts.Modes {
		if !slices.Contains(LocalModes, m) {
			return LocalReport{}, fmt.Errorf("--modes: no mode %q (the modes: %s)", m, strings.Join(LocalModes, ", "))
		}
	}
	if opts.Steps < 0 {
		return LocalReport{}, fmt.Errorf("--steps %d: want 0 (all) or more", opts.Steps)
	}
	if len(trajs) < opts.Sessions {
		return LocalReport{}, fmt.Errorf("%d trajectories for %d sessions", len(trajs), opts.Sessions)
	}
	var picked []*Trajectory
	for _, t := range trajs[:opts.Sessions] {
		c := *t
		if opts.Steps > 0 && len(c.Reqs) > opts.Steps {
			c.Reqs = c.Reqs[:opts.Steps]
		}
		picked = append(picked, &c)
	}
	if opts.Offline {
		if len(opts.Modes) == 0 {
			opts.Modes = []string{"naive", "hosted", "local"}
		}
		for _, m := range opts.Modes {
			if m == "swarm" || m == "swarm1" || m == "summary" {
				return LocalReport{}, fmt.Errorf("--offline replays one session at a time: no %s mode", m)
			}
		}
		s := &localServer{url: "offline (whole messages repeated from the previous request are cached)", offline: &offlineCache{}}
		return Local(ctx, picked, []*localServer{s}, "o200k", opts)
	}
	if opts.URL != "" {
		if opts.Model == "" {
			return LocalReport{}, fmt.Errorf("--ollama %s needs --model: the model to run there", opts.URL)
		}
		var log func() (string, error)
		if opts.LogFile != "" {
			log = func() (string, error) {
				b, err := os.ReadFile(opts.LogFile)
				return string(b), err
			}
		}
		s, err := newLocalServer(strings.TrimRight(opts.URL, "/"), 0, log)
		if err != nil {
			return LocalReport{}, err
		}
		return Local(ctx, picked, []*localServer{s}, opts.Model, opts)
	}
	if opts.Bin == "" {
		return LocalReport{}, errors.New("no ollama to start: pass --ollama-bin (build/ollama.sh prints one) or --ollama URL")
	}
	// One server for the sessions and the swarm (a slot each, one for the summary model), and
	// one with a single slot, to show what a summary call costs there.
	parallels := []int{opts.Sessions + 1}
	if opts.runs("summary") || opts.runs("swarm1") {
		parallels = append(parallels, 1)
	}
	servers, model, stop, err := startLocal(ctx, opts.Bin, parallels)
	if err != nil {
		return LocalReport{}, err
	}
	defer stop()
	return Local(ctx, picked, servers, model, opts)
}
