package session

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/store"
)

// recallQueryBytes bounds the recent conversation a recall searches with: the user's new
// message, then the end of the reply before it.
const recallQueryBytes = 2000

// recallMemory puts the memory records relevant to the user's new message before the turn, as
// an event whose reminder rides on that message (the cached prefix stays intact). Nothing is
// recorded when memory is off, nothing qualifies, or the turn does not start from a user
// message (a Continue).
func (r *Runner) recallMemory(cfg config.Config, session, workspace string, j *agent.Journal) error {
	if r.o.Memory == nil || cfg.MemoryRecallOff {
		return nil
	}
	msgs := j.Messages()
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleUser {
		return nil
	}
	query := recallQuery(msgs)
	found, method, err := r.recallCandidates(cfg, session, workspace, query)
	if err != nil {
		return fmt.Errorf("recall memory: %w", err)
	}
	found, text := memory.Reminder(found, memory.RecallOptions{})
	if text == "" {
		return nil
	}
	rec := store.MemoryRecall{Text: text, Query: query, Method: method}
	if method == store.RecallReranked {
		rec.Model = cfg.Models.Cheap
	}
	for _, f := range found {
		rec.Records = append(rec.Records, store.RecalledRecord{ID: f.ID, Name: f.Name, Score: math.Round(f.Score*1000) / 1000})
	}
	if _, err := r.o.Store.Append(session, store.EventMemoryRecall, rec); err != nil {
		return fmt.Errorf("record the recalled memory: %w", err)
	}
	return nil
}

// rerankTimeout bounds the cheap model's answer: recall must not hold a turn up for long.
const rerankTimeout = 20 * time.Second

// recallCandidates are the records to remind of, best first: with a cheap model set, loose
// BM25 candidates that the model picked from; without one, or when the model fails, the BM25
// candidates above the thresholds. The model's call is logged in session as a priced usage
// event, like every model call.
func (r *Runner) recallCandidates(cfg config.Config, session, workspace, query string) ([]memory.Found, store.RecallMethod, error) {
	if cfg.Models.Cheap != "" {
		loose, err := r.o.Memory.Candidates(workspace, query, memory.LooseRecall)
		if err != nil {
			return nil, "", err
		}
		if len(loose) == 0 {
			return nil, store.RecallReranked, nil
		}
		if p, _, err := r.o.Provider(); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), rerankTimeout)
			picked, usage, err := memory.Rerank(ctx, p, cfg.Models.Cheap, query, loose)
			cancel()
			if usage != nil {
				usage.CostUSD = Price(cfg, usage.Model, *usage)
				if _, aerr := r.o.Store.Append(session, store.EventUsage, *usage); aerr != nil {
					return nil, "", fmt.Errorf("record the rerank call's usage: %w", aerr)
				}
			}
			if err == nil {
				return picked, store.RecallReranked, nil
			}
		}
	}
	found, err := r.o.Memory.Candidates(workspace, query, memory.RecallOptions{})
	return found, store.RecallBM25, err
}

// recallQuery is the user's new message (without reminders already on it) and the end of the
// assistant's reply before it, within recallQueryBytes.
func recallQuery(msgs []llm.Message) string {
	last := msgs[len(msgs)-1].Content
	if i := strings.Index(last, "\n\n<system-reminder>"); i >= 0 {
		last = last[:i]
	}
	q := last
	for i := len(msgs) - 2; i >= 0 && len(q) < recallQueryBytes; i-- {
		if msgs[i].Role != llm.RoleAssistant || msgs[i].Content == "" {
			continue
		}
		prev := msgs[i].Content
		room := recallQueryBytes - len(q)
		if len(prev) > room {
			prev = prev[len(prev)-room:]
			for len(prev) > 0 && prev[0]&0xC0 == 0x80 {
				prev = prev[1:]
			}
		}
		q = prev + "\n" + q
		break
	}
	return q
}
