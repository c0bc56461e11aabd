package manage

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
)

// PullState is where a pull is.
type PullState string

const (
	PullRunning   PullState = "running"
	PullDone      PullState = "done"
	PullCancelled PullState = "cancelled" // what was downloaded stays: the next pull resumes
	PullFailed    PullState = "failed"
)

// Progress is one step of a pull, as the progress bar shows it.
type Progress struct {
	Model  string    `json:"model"`
	State  PullState `json:"state"`
	Status string    `json:"status"` // Ollama's words: "pulling manifest", "pulling 1a2b3c…", "verifying sha256 digest", …
	// Completed and Total are bytes over every layer; Total is 0 until known.
	Completed int64 `json:"completed"`
	Total     int64 `json:"total"`
	// Resumed is what was on disk from an earlier pull when this one began (not fetched again).
	Resumed        int64      `json:"resumed,omitempty"`
	BytesPerSecond float64    `json:"bytes_per_second,omitempty"` // over the last few seconds
	SecondsLeft    float64    `json:"seconds_left,omitempty"`     // at that speed; 0 when unknown
	Error          *llm.Error `json:"error,omitempty"`
}

// speedWindow is how far back the speed looks: long enough to smooth the bursts of a
// download, short enough to follow a network that slows down.
const speedWindow = 5 * time.Second

// tracker turns Ollama's per-layer progress into one figure for the whole model.
type tracker struct {
	p       Progress
	layers  map[string][2]int64 // digest → completed, total
	order   []string
	samples []sample
}

type sample struct {
	at   time.Time
	done int64
}

func newTracker(name string, total int64) *tracker {
	return &tracker{p: Progress{Model: name, State: PullRunning, Total: total}, layers: map[string][2]int64{}}
}

// observe takes one of Ollama's progress lines at time now and returns the progress so far.
func (t *tracker) observe(now time.Time, r api.ProgressResponse) Progress {
	t.p.Status = r.Status
	if r.Digest != "" {
		prev, seen := t.layers[r.Digest]
		if !seen {
			// A layer's first report (60 ms into its download) is about what an earlier pull
			// left on disk, or all of it when it is already there.
			t.order = append(t.order, r.Digest)
			t.p.Resumed += r.Completed
		}
		t.layers[r.Digest] = [2]int64{max(prev[0], r.Completed), max(prev[1], r.Total)}
	}
	var done, total int64
	for _, d := range t.order {
		done += t.layers[d][0]
		total += t.layers[d][1]
	}
	t.p.Completed, t.p.Total = done, max(t.p.Total, total)
	t.samples = append(t.samples, sample{now, done - t.p.Resumed}) // bytes fetched by this pull
	for len(t.samples) > 2 && now.Sub(t.samples[1].at) >= speedWindow {
		t.samples = t.samples[1:]
	}
	t.p.BytesPerSecond, t.p.SecondsLeft = 0, 0
	if first, fetched := t.samples[0], done-t.p.Resumed; now.After(first.at) && fetched > first.done {
		t.p.BytesPerSecond = float64(fetched-first.done) / now.Sub(first.at).Seconds()
		if t.p.Total > done {
			t.p.SecondsLeft = float64(t.p.Total-done) / t.p.BytesPerSecond
		}
	}
	return t.p
}

// CheckName refuses a name Ollama could not pull, with the reason.
func CheckName(name string) (model.Name, error) {
	n := model.ParseName(strings.TrimSpace(name))
	if strings.TrimSpace(name) == "" || !n.IsValid() || strings.ContainsAny(name, " \t\n") {
		return n, &llm.Error{Kind: llm.ErrBadRequest, Provider: ollama.ProviderName,
			Message: "not a model name: " + strings.TrimSpace(name),
			Hint:    "Write it as Ollama does: qwen3:8b, or namespace/model:tag, or host/namespace/model:tag."}
	}
	return n, nil
}

// loopback says whether host (with or without a port) is this machine: a registry there is
// reached over plain HTTP, as `insecure` pulls are; a server there can be started.
func loopback(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Pull downloads name through the server, calling progress with each step, the last one
// with the final state. total (0 when unknown) is the model's size if a Plan found it, so the
// bar is right from the first layer. A cancelled ctx stops the download; Ollama keeps what it
// has and the next Pull of the same model resumes from there.
func (m *Manager) Pull(ctx context.Context, name string, total int64, progress func(Progress)) error {
	n, err := CheckName(name)
	if err != nil {
		return err
	}
	name = strings.TrimSpace(name)
	t := newTracker(name, total)
	req := &api.PullRequest{Model: name, Insecure: loopback(n.Host)}
	for attempt := 0; ; attempt++ {
		err = m.c.Pull(ctx, req, func(r api.ProgressResponse) error {
			progress(t.observe(time.Now(), r))
			return nil
		})
		// A pull started right after another was cancelled can find that download still
		// winding down on the server, which answers with its "context canceled": try again.
		if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "context canceled") || attempt == 5 {
			break
		}
		select {
		case <-time.After(100 * time.Millisecond << attempt):
		case <-ctx.Done():
		}
	}
	final := t.p
	final.BytesPerSecond, final.SecondsLeft = 0, 0
	// The client ends quietly when its stream is cut (a cancel, a server gone): only Ollama's
	// last word, "success", says the model was written.
	if err == nil && final.Status != "success" && ctx.Err() == nil {
		err = errors.New("the pull stopped before Ollama said it was complete")
	}
	switch {
	case err == nil && final.Status == "success":
		final.State, final.Status = PullDone, "success"
		final.Completed = max(final.Completed, final.Total)
	case ctx.Err() != nil:
		final.State = PullCancelled
		err = &llm.Error{Kind: llm.ErrInterrupted, Provider: ollama.ProviderName, Message: "the pull of " + name + " was cancelled",
			Hint: "Pull it again to continue: what was downloaded is kept."}
	default:
		final.State = PullFailed
		var ue *url.Error
		if errors.As(err, &ue) { // Tofu could not talk to Ollama
			err = m.serverError(ctx, err, "pull "+name)
		} else { // Ollama's own failure, as text
			err = pullError(name, n.Host, err.Error())
		}
	}
	if errors.As(err, &final.Error) {
		final.Status = string(final.State)
	}
	progress(final)
	return err
}
