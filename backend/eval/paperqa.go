package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/paper"
)

// PaperQuestion is one line of a paperqa question set: a question on a paper, the sentences
// of the paper that answer it and the pages they are on.
type PaperQuestion struct {
	Paper    string   `json:"paper"` // folder under the papers directory holding paper.pdf
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Pages    []int    `json:"pages"`
}

// PaperQAQuestion is how one question fared.
type PaperQAQuestion struct {
	Paper        string     `json:"paper"`
	Question     string     `json:"question"`
	Recall       [3]float64 `json:"recall"` // at 1, 3 and 5 passages
	PageHit      bool       `json:"page_hit"`
	TopPages     []int      `json:"top_pages"`
	Sections     []string   `json:"sections"` // of the passages sent, in order
	Tokens       int        `json:"tokens"`
	Milliseconds float64    `json:"ms"`
}

// PaperQAReport is the outcome of EvalPaperQA. The keys up to p50_ms are a contract (issue 30).
type PaperQAReport struct {
	Questions         int               `json:"questions"`
	RecallAt1         float64           `json:"recall_at_1"`
	RecallAt3         float64           `json:"recall_at_3"`
	RecallAt5         float64           `json:"recall_at_5"`
	PageAccuracy      float64           `json:"page_accuracy"`
	PassageTokensMean float64           `json:"passage_tokens_mean"`
	P50ms             float64           `json:"p50_ms"`
	PerQuestion       []PaperQAQuestion `json:"per_question,omitempty"`
}

// EvidenceShare is the share of an evidence sentence a passage must hold as one contiguous run
// for the sentence to count as found: extractors differ in spacing, small capitals and
// footnote digits, which whitespace removal and case folding do not undo.
const EvidenceShare = 0.9

// ReadPaperQuestions reads a JSON-lines question set.
func ReadPaperQuestions(path string) ([]PaperQuestion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []PaperQuestion
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var q PaperQuestion
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if q.Paper == "" || q.Question == "" {
			return nil, fmt.Errorf("%s:%d: a question needs paper and question", path, n)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

// EvalPaperQA retrieves, as the paper reader does and without a model, the passages each
// question would be answered from, and scores them against the question's evidence.
func EvalPaperQA(ctx context.Context, papersDir string, qs []PaperQuestion) (*PaperQAReport, error) {
	type indexed struct{ ix *paper.Index }
	papers := map[string]indexed{}
	rep := &PaperQAReport{Questions: len(qs)}
	var times []float64
	var tokenSum, pageHits float64
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, ok := papers[q.Paper]
		if !ok {
			doc, err := paper.OpenContext(ctx, filepath.Join(papersDir, q.Paper, "paper.pdf"), paper.Options{})
			if err != nil {
				return nil, fmt.Errorf("paper %s: %w", q.Paper, err)
			}
			p = indexed{paper.NewIndex(doc.Chunks())}
			papers[q.Paper] = p
		}
		start := time.Now()
		hits := p.ix.Passages(q.Question, paper.PassagesPerQuestion)
		ms := float64(time.Since(start).Microseconds()) / 1000
		times = append(times, ms)
		res := PaperQAQuestion{Paper: q.Paper, Question: q.Question, Milliseconds: ms}
		var texts []string
		for _, h := range hits {
			res.Tokens += tokens.Count(paper.FormatPassage(h.Chunk))
			res.Sections = append(res.Sections, h.Chunk.Section)
			texts = append(texts, evidenceNorm(paper.PageMarkers().ReplaceAllString(h.Chunk.Text, " ")))
		}
		for i, k := range []int{1, 3, 5} {
			res.Recall[i] = evidenceRecall(q.Evidence, texts[:min(k, len(texts))])
		}
		if len(hits) > 0 {
			res.TopPages = hits[0].Chunk.Pages
			for _, want := range q.Pages {
				for _, got := range res.TopPages {
					res.PageHit = res.PageHit || want == got
				}
			}
		}
		if res.PageHit {
			pageHits++
		}
		rep.RecallAt1 += res.Recall[0]
		rep.RecallAt3 += res.Recall[1]
		rep.RecallAt5 += res.Recall[2]
		tokenSum += float64(res.Tokens)
		rep.PerQuestion = append(rep.PerQuestion, res)
	}
	if n := float64(len(qs)); n > 0 {
		rep.RecallAt1 = round4(rep.RecallAt1 / n)
		rep.RecallAt3 = round4(rep.RecallAt3 / n)
		rep.RecallAt5 = round4(rep.RecallAt5 / n)
		rep.PageAccuracy = round4(pageHits / n)
		rep.PassageTokensMean = round4(tokenSum / n)
		sort.Float64s(times)
		rep.P50ms = round4(times[len(times)/2])
	}
	return rep, nil
}

// evidenceRecall is the share of the evidence sentences that one of the passages holds; a
// question without evidence counts as answered.
func evidenceRecall(evidence, passages []string) float64 {
	if len(evidence) == 0 {
		return 1
	}
	found := 0
	for _, e := range evidence {
		en := []rune(evidenceNorm(e))
		for _, p := range passages {
			if len(en) == 0 || float64(longestCommonRun(en, []rune(p))) >= EvidenceShare*float64(len(en)) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(evidence))
}

// evidenceNorm joins words hyphenated at line ends, removes all whitespace and folds case.
func evidenceNorm(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c == '-' || c == '‐' || c == '\u00ad' {
			j := i + 1
			for j < len(r) && r[j] != '\n' && unicode.IsSpace(r[j]) {
				j++
			}
			if j < len(r) && r[j] == '\n' {
				i = j // a hyphen ending a line: the word goes on after the break
				continue
			}
		}
		if unicode.IsSpace(c) {
			continue
		}
		b.WriteString(strings.ToLower(string(c)))
	}
	return b.String()
}

// longestCommonRun is the length of the longest common substring of a and b.
func longestCommonRun(a, b []rune) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	best := 0
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				best = max(best, cur[j])
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}

// WriteJSON writes the report as indented JSON.
func (r *PaperQAReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the figures and, per question, what was missed.
func (r *PaperQAReport) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "questions          %d\n", r.Questions)
	fmt.Fprintf(bw, "recall@1/3/5       %.3f / %.3f / %.3f\n", r.RecallAt1, r.RecallAt3, r.RecallAt5)
	fmt.Fprintf(bw, "page accuracy      %.3f (top passage)\n", r.PageAccuracy)
	fmt.Fprintf(bw, "passage tokens     %.0f per question (o200k)\n", r.PassageTokensMean)
	fmt.Fprintf(bw, "p50 latency        %.3f ms\n", r.P50ms)
	for _, q := range r.PerQuestion {
		if q.Recall[2] < 1 || !q.PageHit {
			fmt.Fprintf(bw, "  missed: %s: %q recall@5 %.2f, top pages %v, sections %q\n", q.Paper, q.Question, q.Recall[2], q.TopPages, q.Sections)
		}
	}
	return bw.Flush()
}
