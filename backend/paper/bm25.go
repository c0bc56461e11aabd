package paper

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25 parameters: the standard values.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Index ranks chunks for a question with Okapi BM25. It is built in memory from the chunks
// (fast: a 20-page paper takes well under a millisecond) and is deterministic.
type Index struct {
	chunks []Chunk
	tf     []map[string]int // term frequencies per chunk
	length []int            // tokens per chunk
	df     map[string]int
	avg    float64
}

// Hit is one retrieved chunk and its score.
type Hit struct {
	Chunk Chunk   `json:"chunk"`
	Score float64 `json:"score"`
}

// NewIndex indexes the chunks; the section title counts as part of each chunk's text.
func NewIndex(chunks []Chunk) *Index {
	ix := &Index{chunks: chunks, df: map[string]int{}}
	total := 0
	for _, c := range chunks {
		toks := Tokenize(c.Section + "\n" + c.Text)
		tf := map[string]int{}
		for _, t := range toks {
			tf[t]++
		}
		for t := range tf {
			ix.df[t]++
		}
		ix.tf = append(ix.tf, tf)
		ix.length = append(ix.length, len(toks))
		total += len(toks)
	}
	if len(chunks) > 0 {
		ix.avg = float64(total) / float64(len(chunks))
	}
	return ix
}

// Search returns up to k chunks with a positive score, best first; ties go to the earlier
// chunk.
func (ix *Index) Search(query string, k int) []Hit {
	terms := map[string]bool{}
	for _, t := range Tokenize(query) {
		terms[t] = true
	}
	n := float64(len(ix.chunks))
	var hits []Hit
	for i, tf := range ix.tf {
		score := 0.0
		for t := range terms {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			df := float64(ix.df[t])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			norm := 1 - bm25B + bm25B*float64(ix.length[i])/ix.avg
			score += idf * f * (bm25K1 + 1) / (f + bm25K1*norm)
		}
		if score > 0 {
			hits = append(hits, Hit{Chunk: ix.chunks[i], Score: score})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].Score > hits[b].Score })
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// Tokenize lower-cases text and splits it into letter/digit runs; each CJK character is a token,
// one-letter Latin tokens and English stopwords are dropped, and a plural "s" is stripped.
func Tokenize(text string) []string {
	var out []string
	var cur []rune
	emit := func() {
		if len(cur) == 0 {
			return
		}
		w := string(cur)
		cur = cur[:0]
		if len([]rune(w)) < 2 || stopwords[w] {
			return
		}
		out = append(out, stem(w))
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case isCJK(r):
			emit()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		default:
			emit()
		}
	}
	emit()
	return out
}

// stem removes an English plural ending: "claims" and "claim" match. Nothing more: a stemmer
// that guesses wrong costs more precision than it buys in recall on a single paper.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be
		because been before being below between both but by can could did do does doing down during each
		few for from further had has have having he her here hers herself him himself his how i if in into
		is it its itself just me more most my myself no nor not now of off on once only or other our ours
		ourselves out over own same she should so some such than that the their theirs them themselves
		then there these they this those through to too under until up very was we were what when where
		which while who whom why will with would you your yours yourself yourselves et al paper use used
		using however thus may might must shall us via`) {
		m[w] = true
	}
	return m
}()
