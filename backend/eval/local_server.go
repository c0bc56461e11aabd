package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
)

// call sends msgs as Tofu's provider encodes them (num_ctx = window, no truncation, predict
// tokens) and measures the reply: prompt_eval_count and _duration from the final chunk, the
// time to the first chunk, and the evaluated tokens from the server's log.
func (s *localServer) call(ctx context.Context, model string, window int, msgs []llm.Message, predict int) (LocalStep, error) {
	if s.offline != nil {
		return s.offline.call(msgs), nil
	}
	params, _ := json.Marshal(ollama.Params{Window: window})
	body, err := ollama.Encode(llm.Request{Model: model, Messages: msgs, MaxTokens: predict, Temperature: new(float64)}, params)
	if err != nil {
		return LocalStep{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/api/chat", bytes.NewReader(body))
	if err != nil {
		return LocalStep{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := s.http.Do(req)
	if err != nil {
		return LocalStep{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		return LocalStep{}, fmt.Errorf("ollama answered %s: %s", resp.Status, e.Error)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var step LocalStep
	var final *api.ChatResponse
	for sc.Scan() {
		if step.TTFTMS == 0 {
			step.TTFTMS = ms(time.Since(start))
		}
		var line struct {
			api.ChatResponse
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return step, fmt.Errorf("a line of the reply: %w", err)
		}
		if line.Error != "" {
			return step, errors.New(line.Error)
		}
		if line.Done {
			final = &line.ChatResponse
		}
	}
	if err := sc.Err(); err != nil {
		return step, err
	}
	if final == nil {
		return step, errors.New("the reply ended before its final chunk")
	}
	step.Prompt = final.PromptEvalCount
	step.PrefillMS = ms(final.PromptEvalDuration)
	step.ServerMS = ms(final.TotalDuration - final.LoadDuration - final.PromptEvalDuration - final.EvalDuration)
	if step.Prompt >= window {
		// Ollama before the truncate flag drops the front silently: the figures would lie.
		return step, fmt.Errorf("the prompt took %d tokens of a %d window: the server truncated it", step.Prompt, window)
	}
	step.Evaluated = -1
	if s.slots != nil {
		if step.Evaluated, err = s.slots.take(ctx, step.Prompt); err != nil {
			return step, err
		}
	}
	return step, nil
}

// unload ends the model's runner (keep_alive 0, what `ollama stop` does) and waits until the
// server lists it no more, so the next session starts with an empty cache.
func (s *localServer) unload(ctx context.Context, model string) error {
	if s.offline != nil {
		s.offline.reset()
		return nil
	}
	err := s.api.Generate(ctx, &api.GenerateRequest{Model: model, KeepAlive: &api.Duration{Duration: 0}}, func(api.GenerateResponse) error { return nil })
	if err != nil {
		return fmt.Errorf("unload %s: %w", model, err)
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ps, err := s.api.ListRunning(ctx)
		if err != nil {
			return fmt.Errorf("/api/ps: %w", err)
		}
		if len(ps.Models) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// slotRe is the runner's debug line when a request takes a cache slot (llamarunner and
// ollamarunner, v0.6.8 to v0.17): prompt is the request's tokens, used those found cached.
var slotRe = regexp.MustCompile(`msg="loading cache slot".* prompt=(\d+) used=(\d+) remaining=(\d+)`)

// slotLog matches requests with the server log's cache-slot lines: by prompt length, in order
// (concurrent sessions have prompts of different lengths; equal ones are told apart by order).
type slotLog struct {
	read func() (string, error)
	mu   sync.Mutex
	seen int        // bytes of the log parsed (whole lines)
	open []slotLine // lines parsed and not matched yet, in order
}

type slotLine struct{ prompt, remaining int }

// slotWait bounds the wait for a line the runner printed before its reply: the server copies
// the runner's output to its own log asynchronously.
const slotWait = 30 * time.Second

// take returns the evaluated tokens of the earliest unmatched slot line with the given prompt.
func (l *slotLog) take(ctx context.Context, prompt int) (int, error) {
	deadline := time.Now().Add(slotWait)
	for {
		text, err := l.read()
		if err != nil {
			return -1, fmt.Errorf("read the server log: %w", err)
		}
		if ev, ok := l.match(text, prompt); ok {
			return ev, nil
		}
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("no \"loading cache slot\" line for a %d-token prompt in the server log: is it running with OLLAMA_DEBUG=1?", prompt)
		}
		select {
		case <-ctx.Done():
			return -1, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// match parses the log's new whole lines (a long run's log grows to many megabytes: each is
// read once) and takes the first open line with the prompt.
func (l *slotLog) match(text string, prompt int) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen > len(text) {
		l.seen = 0 // a new log
	}
	if end := strings.LastIndexByte(text, '\n'); end >= l.seen {
		for line := range strings.SplitSeq(text[l.seen:end], "\n") {
			if m := slotRe.FindStringSubmatch(line); m != nil {
				p, _ := strconv.Atoi(m[1])
				r, _ := strconv.Atoi(m[3])
				l.open = append(l.open, slotLine{p, r})
			}
		}
		l.seen = end + 1
	}
	for i, s := range l.open {
		if s.prompt == prompt {
			l.open = slices.Delete(l.open, i, i+1)
			return s.remaining, true
		}
	}
	return 0, false
}
