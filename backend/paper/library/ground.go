package library

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/store"
)

// How much of the paper goes into a request.
const (
	qaChunks          = 5     // passages per question
	reportBudgetWords = 12000 // ~16k tokens: fits the default 32k context with room for the reply
	defaultWindow     = 32768 // context window of a model that does not say
)

type paperIndex struct {
	title  string
	chunks []paper.Chunk
	index  *paper.Index
}

func (l *Library) index(id string) (*paperIndex, error) {
	l.mu.Lock()
	ix := l.indexes[id]
	l.mu.Unlock()
	if ix != nil {
		return ix, nil
	}
	info, err := l.Info(id)
	if err != nil {
		return nil, err
	}
	ps, err := l.structure(id)
	if err != nil {
		return nil, err
	}
	ix = &paperIndex{title: info.Title, chunks: ps.Chunks, index: paper.NewIndex(ps.Chunks)}
	l.mu.Lock()
	l.indexes[id] = ix
	l.mu.Unlock()
	return ix, nil
}

// Augment puts the paper into the request of a paper session's turn: the retrieved passages
// for a question, the whole text (within a budget) for a report, and logs what it put in as a
// retrieval event. msgs is the request's conversation with the system message first; a
// session not linked to a paper is left as it is. The turn runner calls it before each turn,
// so every turn is grounded afresh.
//
// A Q&A request keeps the prefix the previous one sent, so a provider's cache serves it: the
// instructions go into the system message, and each earlier question is sent again with the
// passages it was given (from its retrieval event), byte for byte; only the new question's
// passages are new.
func (l *Library) Augment(sessionID, model string, msgs []llm.Message) ([]llm.Message, error) {
	info, err := l.store.Session(sessionID)
	if err != nil || info.Paper == "" || len(msgs) == 0 {
		return msgs, nil
	}
	ix, err := l.index(info.Paper)
	if err != nil {
		return nil, fmt.Errorf("the paper of this conversation: %w", err)
	}
	if info.Purpose == store.PurposeReport {
		return l.augmentReport(sessionID, info.Paper, ix, model, msgs)
	}
	last := len(msgs) - 1
	question := msgs[last].Content
	out := withInstructions(msgs, strings.ReplaceAll(assets.Prompt("paper_qa"), "{{title}}", ix.title))
	last = len(out) - 1
	earlier, err := l.earlierQuestions(sessionID, ix, out[:last])
	if err != nil {
		return nil, err
	}
	// What fits: the model's window less the reply's reserve and the conversation so far. A
	// conversation grown past it sends its earlier questions bare (the cache is lost once).
	budget := l.budgetBytes(model)
	used := 0
	for _, m := range earlier {
		used += len(m.Content) + 32
	}
	if used > budget/2 {
		earlier, used = out[:last], 0
		for _, m := range earlier {
			used += len(m.Content) + 32
		}
	}
	budget -= used
	cost := func(c paper.Chunk) int { return len(paper.FormatPassage(c)) + 2 }
	rec := store.Retrieval{Paper: info.Paper, Query: question, Method: store.RetrievalBM25}
	var chosen []paper.Chunk
	spent := 0
	for _, h := range ix.index.Passages(question, paper.PassagesPerQuestion) {
		if len(chosen) > 0 && spent+cost(h.Chunk) > budget {
			break
		}
		spent += cost(h.Chunk)
		chosen = append(chosen, h.Chunk)
		rec.Chunks = append(rec.Chunks, store.RetrievedChunk{ID: h.Chunk.ID, Pages: h.Chunk.Pages, Section: h.Chunk.Section, Score: round3(h.Score)})
	}
	if len(chosen) == 0 { // no term of the question is in the paper ("summarize this")
		rec.Method = store.RetrievalFirstChunks
		chosen = ix.chunks[:min(3, len(ix.chunks))]
		for _, c := range chosen {
			rec.Chunks = append(rec.Chunks, store.RetrievedChunk{ID: c.ID, Pages: c.Pages, Section: c.Section})
		}
	}
	for _, c := range chosen {
		rec.Words += c.Words
	}
	if _, err := l.store.Append(sessionID, store.EventRetrieval, rec); err != nil {
		return nil, fmt.Errorf("log the passages retrieved: %w", err)
	}
	res := append([]llm.Message(nil), earlier...)
	return append(res, llm.Message{Role: llm.RoleUser, Content: questionWithPassages(chosen, question)}), nil
}

// withInstructions is msgs with the paper's instructions at the end of the system message (a
// system message of their own when there is none): the same for every question of the paper.
func withInstructions(msgs []llm.Message, instructions string) []llm.Message {
	out := append([]llm.Message(nil), msgs...)
	if out[0].Role == llm.RoleSystem {
		if out[0].Content != "" {
			instructions = out[0].Content + "\n\n" + instructions
		}
		out[0].Content = instructions
		return out
	}
	return append([]llm.Message{{Role: llm.RoleSystem, Content: instructions}}, out...)
}

// questionWithPassages is a question as sent: its passages, then the question.
func questionWithPassages(chosen []paper.Chunk, question string) string {
	var b strings.Builder
	for _, c := range chosen {
		b.WriteString(paper.FormatPassage(c))
		b.WriteString("\n\n")
	}
	b.WriteString("Question: " + question)
	return b.String()
}

// earlierQuestions is the conversation before the new question with each earlier question as
// it was sent: with the passages its retrieval event names. Events and questions are matched in
// order by the question's text; a question without one (asked before the paper was linked)
// stays as it is.
func (l *Library) earlierQuestions(sessionID string, ix *paperIndex, msgs []llm.Message) ([]llm.Message, error) {
	evs, err := l.store.Events(sessionID)
	if err != nil {
		return nil, fmt.Errorf("read the passages given before: %w", err)
	}
	var recs []store.Retrieval
	for _, e := range evs {
		var rec store.Retrieval
		if e.Type == store.EventRetrieval && e.Decode(&rec) == nil && rec.Method != store.RetrievalFullText {
			recs = append(recs, rec)
		}
	}
	out := append([]llm.Message(nil), msgs...)
	next := 0
	for i, m := range out {
		if m.Role != llm.RoleUser {
			continue
		}
		for j := next; j < len(recs); j++ {
			if recs[j].Query != m.Content {
				continue
			}
			var chosen []paper.Chunk
			for _, c := range recs[j].Chunks {
				if c.ID >= 0 && c.ID < len(ix.chunks) {
					chosen = append(chosen, ix.chunks[c.ID])
				}
			}
			out[i].Content = questionWithPassages(chosen, m.Content)
			next = j + 1
			break
		}
	}
	return out, nil
}

// augmentReport puts the paper's text, within the model's window, into a report's request.
func (l *Library) augmentReport(sessionID, paperID string, ix *paperIndex, model string, msgs []llm.Message) ([]llm.Message, error) {
	budget := l.budgetBytes(model)
	for _, m := range msgs[:len(msgs)-1] {
		if m.Role == llm.RoleSystem {
			budget -= len(m.Content) + 32
		}
	}
	cost := func(c paper.Chunk) int { return len(paper.FormatPassage(c)) + 2 }
	rec := store.Retrieval{Paper: paperID, Method: store.RetrievalFullText, Query: msgs[len(msgs)-1].Content}
	chosen := fitReport(ix.chunks, budget, cost)
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(assets.Prompt("paper_report"), "{{title}}", ix.title))
	b.WriteString("\n\n")
	for _, c := range chosen {
		b.WriteString(paper.FormatPassage(c))
		b.WriteString("\n\n")
		rec.Words += c.Words
		rec.Chunks = append(rec.Chunks, store.RetrievedChunk{ID: c.ID, Pages: c.Pages, Section: c.Section})
	}
	if _, err := l.store.Append(sessionID, store.EventRetrieval, rec); err != nil {
		return nil, fmt.Errorf("log the passages retrieved: %w", err)
	}
	// The report is made from the paper alone, not from earlier reports.
	out := systemOnly(msgs)
	return append(out, llm.Message{Role: llm.RoleUser, Content: strings.TrimSpace(b.String())}), nil
}

// budgetBytes estimates how many bytes of paper text fit in a request to model: its context
// window (from the provider, 32k when unknown) less 2k tokens for the reply and 1k for the
// instructions, at 3 bytes per token (the estimate the Ollama provider checks requests with).
func (l *Library) budgetBytes(model string) int {
	l.mu.Lock()
	window, ok := l.windows[model]
	l.mu.Unlock()
	if !ok {
		var err error
		window, err = l.window(model)
		if err == nil { // an unreachable provider is asked again next time
			l.mu.Lock()
			l.windows[model] = window
			l.mu.Unlock()
		}
	}
	return max(2000, (window-2048-1024)*3)
}

// window asks the provider for model's context window (defaultWindow when it does not say).
func (l *Library) window(model string) (int, error) {
	provider, err := l.opts.Provider()
	if err != nil {
		return defaultWindow, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	models, err := provider.Models(ctx)
	window := defaultWindow
	for _, m := range models {
		if m.Name == model || strings.TrimSuffix(m.Name, ":latest") == model {
			if m.ContextWindow > 0 {
				window = m.ContextWindow
			} else if m.ContextLength > 0 {
				window = m.ContextLength
			}
		}
	}
	return window, err
}

// fitReport picks the chunks a report is written from: all of them when they fit; else the
// first chunk of every section (so results and conclusions are not cut off by a long method
// section), then the rest in reading order while they fit. The pick is in reading order.
func fitReport(chunks []paper.Chunk, budget int, cost func(paper.Chunk) int) []paper.Chunk {
	used, words := 0, 0
	picked := make([]bool, len(chunks))
	take := func(i int) {
		if c := chunks[i]; !picked[i] && used+cost(c) <= budget && words+c.Words <= reportBudgetWords {
			picked[i] = true
			used += cost(c)
			words += c.Words
		}
	}
	for i, c := range chunks {
		if i == 0 || c.Section != chunks[i-1].Section {
			take(i)
		}
	}
	for i := range chunks {
		take(i)
	}
	var out []paper.Chunk
	for i, c := range chunks {
		if picked[i] {
			out = append(out, c)
		}
	}
	return out
}

func systemOnly(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			out = append(out, m)
		}
	}
	return out
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
