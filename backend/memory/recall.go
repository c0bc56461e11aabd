package memory

import (
	"fmt"
	"strings"
)

// RecallOptions bound what a turn is given unasked.
type RecallOptions struct {
	MaxRecords int     // at most this many records (0: 3)
	MaxBytes   int     // of record text in all (0: 2,000)
	MinScore   float64 // BM25 score below which a record is not recalled (0: 1.0)
	// MinMatched is how many distinct query terms a record must hold (0: 2, or 1 for a
	// one-term query): one shared word is chance, not relevance.
	MinMatched int
}

func (o RecallOptions) withDefaults() RecallOptions {
	if o.MaxRecords <= 0 {
		o.MaxRecords = 3
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 2000
	}
	if o.MinScore <= 0 {
		o.MinScore = 1.0
	}
	if o.MinMatched <= 0 {
		o.MinMatched = 2
	}
	return o
}

// Recall picks the enabled records worth putting before a turn: BM25 candidates for the
// recent conversation above a score and a number of matched terms, best first, within the
// record and byte budgets. It returns the reminder text ("" when nothing qualifies).
func (s *Store) Recall(workspace, query string, opt RecallOptions) ([]Found, string, error) {
	found, err := s.Candidates(workspace, query, opt)
	if err != nil {
		return nil, "", err
	}
	picked, text := Reminder(found, opt)
	return picked, text, nil
}

// Candidates are the enabled records that pass opt's score and matched-term thresholds, best
// first (at most four times MaxRecords).
func (s *Store) Candidates(workspace, query string, opt RecallOptions) ([]Found, error) {
	opt = opt.withDefaults()
	if strings.TrimSpace(query) == "" {
		return nil, nil
	}
	found, err := s.Search(workspace, query, opt.MaxRecords*4, false)
	if err != nil {
		return nil, err
	}
	minMatched := opt.MinMatched
	if n := s.distinctTerms(query); n < minMatched {
		minMatched = max(n, 1)
	}
	var out []Found
	for _, f := range found {
		if f.Score >= opt.MinScore && f.Matched >= minMatched {
			out = append(out, f)
		}
	}
	return out, nil
}

// Reminder keeps records in order within opt's record and byte budgets (the first one alone
// is cut when longer) and writes the reminder the model reads ("" for none).
func Reminder(found []Found, opt RecallOptions) ([]Found, string) {
	opt = opt.withDefaults()
	var picked []Found
	var b strings.Builder
	used := 0
	for _, f := range found {
		if len(picked) == opt.MaxRecords {
			break
		}
		entry := recallEntry(f.Record)
		if used+len(entry) > opt.MaxBytes {
			if len(picked) > 0 {
				continue
			}
			entry = cut(entry, opt.MaxBytes) // the best record alone, shortened
		}
		used += len(entry)
		picked = append(picked, f)
		b.WriteString(entry)
	}
	if len(picked) == 0 {
		return nil, ""
	}
	return picked, "<system-reminder>\nMemory records that may apply (from earlier sessions; verify before relying on them):\n" +
		b.String() + "</system-reminder>"
}

func (s *Store) distinctTerms(query string) int {
	seen := map[string]bool{}
	for _, t := range s.an.Terms(query, "") {
		seen[t] = true
	}
	return len(seen)
}

func recallEntry(r Record) string {
	head := fmt.Sprintf("## %s [%s]", r.Name, r.ID)
	if r.Description != "" {
		head += " — " + r.Description
	}
	return head + "\n" + strings.TrimSpace(r.Body) + "\n"
}

// cut shortens s to at most n bytes at a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…\n"
	n -= len(mark)
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:max(n, 0)] + mark
}
