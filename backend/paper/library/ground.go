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
func (l *Library) Augment(sessionID, model string, msgs []llm.Message) ([]llm.Message, error) {
	info, err := l.store.Session(sessionID)
	if err != nil || info.Paper == "" || len(msgs) == 0 {
		return msgs, nil
	}
	ix, err := l.index(info.Paper)
	if err != nil {
		return nil, fmt.Errorf("the paper of this conversation: %w", err)
	}
	report := info.Purpose == store.PurposeReport
	last := len(msgs) - 1
	question := msgs[last].Content
	// What fits: the model's window less the reply's reserve and the conversation so far.
	budget := l.budgetBytes(model)
	for _, m := range msgs[:last] {
		if !report || m.Role == llm.RoleSystem {
			budget -= len(m.Content) + 32
		}
	}
	cost := func(c paper.Chunk) int { return len(c.Text) + len(c.Section) + 64 }
	rec := store.Retrieval{Paper: info.Paper, Query: question}
	var b strings.Builder
	var chosen []paper.Chunk
	if report {
		rec.Method = store.RetrievalFullText
		chosen = fitReport(ix.chunks, budget, cost)
		b.WriteString(strings.ReplaceAll(assets.Prompt("paper_report"), "{{title}}", ix.title))
		// The report is made from the paper alone, not from earlier reports.
		msgs = append(systemOnly(msgs), llm.Message{Role: llm.RoleUser})
		last = len(msgs) - 1
	} else {
		rec.Method = store.RetrievalBM25
		used := 0
		for _, h := range ix.index.Search(question, qaChunks) {
			if len(chosen) > 0 && used+cost(h.Chunk) > budget {
				break
			}
			used += cost(h.Chunk)
			chosen = append(chosen, h.Chunk)
			rec.Chunks = append(rec.Chunks, store.RetrievedChunk{ID: h.Chunk.ID, Pages: h.Chunk.Pages, Section: h.Chunk.Section, Score: round3(h.Score)})
		}
		if len(chosen) == 0 { // no term of the question is in the paper ("summarize this")
			rec.Method = store.RetrievalFirstChunks
			chosen = ix.chunks[:min(3, len(ix.chunks))]
		}
		b.WriteString(strings.ReplaceAll(assets.Prompt("paper_qa"), "{{title}}", ix.title))
	}
	if rec.Chunks == nil {
		for _, c := range chosen {
			rec.Chunks = append(rec.Chunks, store.RetrievedChunk{ID: c.ID, Pages: c.Pages, Section: c.Section})
		}
	}
	b.WriteString("\n\n")
	for _, c := range chosen {
		fmt.Fprintf(&b, "<passage id=%d pages=%q section=%q>\n%s\n</passage>\n\n", c.ID, pagesLabel(c.Pages), c.Section, c.Text)
		rec.Words += c.Words
	}
	if !report {
		b.WriteString("Question: " + question)
	}
	if _, err := l.store.Append(sessionID, store.EventRetrieval, rec); err != nil {
		return nil, fmt.Errorf("log the passages retrieved: %w", err)
	}
	out := append([]llm.Message(nil), msgs...)
	out[last] = llm.Message{Role: llm.RoleUser, Content: strings.TrimSpace(b.String())}
	return out, nil
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

// pagesLabel writes pages as "p. 4" or "pp. 4-5".
func pagesLabel(pages []int) string {
	switch len(pages) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("p. %d", pages[0])
	}
	return fmt.Sprintf("pp. %d-%d", pages[0], pages[len(pages)-1])
}
