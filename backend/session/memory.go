package session

import (
	"fmt"
	"math"
	"strings"

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
	found, text, err := r.o.Memory.Recall(workspace, query, memory.RecallOptions{})
	if err != nil {
		return fmt.Errorf("recall memory: %w", err)
	}
	if text == "" {
		return nil
	}
	rec := store.MemoryRecall{Text: text, Query: query}
	for _, f := range found {
		rec.Records = append(rec.Records, store.RecalledRecord{ID: f.ID, Name: f.Name, Score: math.Round(f.Score*1000) / 1000})
	}
	if _, err := r.o.Store.Append(session, store.EventMemoryRecall, rec); err != nil {
		return fmt.Errorf("record the recalled memory: %w", err)
	}
	return nil
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
