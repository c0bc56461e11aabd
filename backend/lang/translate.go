package lang

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Translator translates one chunk whose protected spans are placeholders [[T1]], [[T2]]….
// attempt counts from 0; a retry after a lost placeholder is attempt 1, 2….
type Translator interface {
	Translate(ctx context.Context, text, from, to string, attempt int) (string, error)
}

// Pipeline translates whole texts: protected spans masked, paragraphs chunked and translated
// in parallel, placeholders restored (a chunk that lost one is retried), chunks cached.
type Pipeline struct {
	Translator Translator
	Cache      Cache  // nil: no cache
	Model      string // names the translator in cache keys
	MaxChunk   int    // runes per chunk; 0 is 1,500
	Parallel   int    // chunks at once; 0 is 4
	Retries    int    // further attempts for a chunk that lost a placeholder; 0 is 2
	Timeout    time.Duration
}

// Result is a text and its translation, with what it took.
type Result struct {
	Source  string `json:"source"`
	Text    string `json:"text"` // the translation, or Source when Fallback says why not
	From    string `json:"from"`
	To      string `json:"to"`
	Spans   int    `json:"spans"`   // protected spans in Source
	Chunks  int    `json:"chunks"`  // chunks sent or read from the cache
	Cached  int    `json:"cached"`  // chunks read from the cache
	Retries int    `json:"retries"` // attempts repeated after a lost placeholder
	// Fallback is set when the original text is used instead of a translation: the reason,
	// to tell the user.
	Fallback string `json:"fallback,omitempty"`
}

// Translate translates text from one language to another (ISO 639-1 codes). It never fails:
// on a timeout, a model error or a placeholder lost in every attempt, the result carries the
// original text and says why in Fallback.
func (p *Pipeline) Translate(ctx context.Context, text, from, to string) Result {
	res := Result{Source: text, Text: text, From: from, To: to}
	if strings.TrimSpace(text) == "" || from == to {
		return res
	}
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	m := Protect(text)
	res.Spans = len(m.Spans)
	chunks := split(m, orDefault(p.MaxChunk, 1500))
	res.Chunks = len(chunks)
	outs := make([]string, len(chunks))
	errs := make([]error, len(chunks))
	var mu sync.Mutex
	sem := make(chan struct{}, orDefault(p.Parallel, 4))
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			out, cached, retries, err := p.chunk(ctx, c, from, to)
			outs[i], errs[i] = out, err
			mu.Lock()
			res.Retries += retries
			if cached {
				res.Cached++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		res.Fallback = fallbackReason(err)
		return res
	}
	var b strings.Builder
	for i, c := range chunks {
		b.WriteString(outs[i])
		b.WriteString(c.sep)
	}
	res.Text = b.String()
	return res
}

// chunk translates one chunk, from the cache when it is there, retrying while placeholders
// come back lost.
func (p *Pipeline) chunk(ctx context.Context, c chunk, from, to string) (out string, cached bool, retries int, err error) {
	if !c.hasProse() {
		s, err := Restore(c.text, c.spans)
		return s, false, 0, err
	}
	key := cacheKey(p.Model, from, to, c.text)
	if p.Cache != nil {
		if hit, ok, err := p.Cache.Get(key); err == nil && ok {
			if s, err := Restore(hit, c.spans); err == nil {
				return s, true, 0, nil
			}
		}
	}
	var last error
	for attempt := 0; attempt <= orDefault(p.Retries, 2); attempt++ {
		if attempt > 0 {
			retries++
		}
		tr, err := p.Translator.Translate(ctx, c.text, from, to, attempt)
		if err != nil {
			return "", false, retries, fmt.Errorf("translate a chunk: %w", err)
		}
		s, err := Restore(tr, c.spans)
		if err == nil {
			if p.Cache != nil {
				_ = p.Cache.Put(key, tr) // a cache that cannot write costs a later call, no more
			}
			return s, false, retries, nil
		}
		last = err
	}
	return "", false, retries, last
}

func fallbackReason(err error) string {
	var lost *LostError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "the translation timed out; the original text was used"
	case errors.Is(err, context.Canceled):
		return "the translation was stopped; the original text was used"
	case errors.As(err, &lost):
		return "the translation kept dropping protected text (code, links, numbers); the original text was used"
	default:
		return fmt.Sprintf("the translation failed (%v); the original text was used", err)
	}
}

func orDefault(n, d int) int {
	if n <= 0 {
		return d
	}
	return n
}
