package agent

import (
	"context"
	"errors"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/store"
)

// ErrNoContextManager refuses /compact in a conversation whose requests are not compacted (a
// paper's Q&A builds its own from the passages, an autonomous run's phases their own views).
var ErrNoContextManager = errors.New("this conversation has no context manager to compact it")

// Compact runs L2 now, because the user asked (/compact): the turns before the latest exchange
// are summarized, with the user's instruction passed to the summariser, and recorded as a
// compaction event with its notice, exactly as an automatic one (undo in the transcript). No
// model reply follows. With nothing to summarize (only the latest exchange) the log gets a
// notice saying so; a failed summary is a notice too, and the conversation stays as it was.
func (a *Agent) Compact(ctx context.Context, t Turn, instruction string) End {
	if end, ok := a.open(&t); !ok {
		return end
	}
	if !t.summarizes() {
		return End{Reason: store.EndError, Err: ErrNoContextManager}
	}
	events := t.j.snapshot()
	req, v, rc, err := a.build(&t, events, 0)
	if err != nil {
		return End{Reason: store.EndError, Err: err}
	}
	cfg := t.Context.Config
	// Everything before the latest exchange goes: the user asked for room, not for the
	// automatic summary's verbatim tail.
	cfg.L2.Enabled, cfg.L2.PreserveRatio, cfg.L2.MaxPreserveTurns = true, 0, 0
	cfg.L2.Instruction = instruction
	window := t.Window
	if window <= 0 {
		window = lastWindow(events)
	}
	err = a.summarize(ctx, &t, v, rc.upto, RequestTokens(req, events), window, cfg, compact.TriggerManual)
	if errors.Is(err, compact.ErrNothingToSummarize) {
		t.j.later(store.EventNotice, store.Notice{Text: "Nothing to compact yet: the latest exchange is kept whole, and there is nothing before it."})
	}
	end := End{Reason: store.EndDone}
	if interrupted(ctx) {
		end.Reason = store.EndInterrupted
	}
	if _, err := t.j.record(); err != nil {
		return End{Reason: store.EndError, Err: err}
	}
	return end
}
