package search

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Params are BM25's constants: K1 saturates term frequency, B scales length normalization.
type Params struct {
	K1 float64
	B  float64
}

// DefaultParams are Robertson's textbook values (k1 1.2, b 0.75), not fitted to any
// collection Tofu is measured on.
var DefaultParams = Params{K1: 1.2, B: 0.75}

// Field is one named part of a document and its weight in BM25F (a title worth twice the body
// counts each title occurrence twice, after each field's own length normalization).
type Field struct {
	Name   string
	Weight float64
}

// BEIRFields are the fields of a BEIR corpus record: title, text, and the strings of its
// metadata (authors, keywords…). They weigh alike: no field is favoured without a reason
// measured on data Tofu is not evaluated on.
var BEIRFields = []Field{{Name: "title", Weight: 1}, {Name: "text", Weight: 1}, {Name: "metadata", Weight: 1}}

// Doc is a document to index: its ID and the text of each field, in the index's field order.
// Lang is the language of its Latin-script words; empty means detect.
type Doc struct {
	ID     string
	Fields []string
	Lang   string
}

// Hit is a ranked document.
type Hit struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	// Matched counts the distinct query terms the document holds; a lone CJK character does
	// not count (it is evidence only beside its neighbours, which count as a bigram).
	Matched int `json:"matched"`
	doc     int32
}

// posting is one field of one document that holds a term.
type posting struct {
	doc   int32
	field uint8
	tf    uint16
}

type termEntry struct {
	df       int // live documents that hold the term
	postings []posting
}

type docEntry struct {
	id      string
	lens    []int32
	terms   []string // distinct terms, to undo the document's counts on removal
	lang    string
	deleted bool
}

// Index is an in-memory inverted index ranked with BM25F (Robertson, Zaragoza and Taylor,
// "Simple BM25 extension to multiple weighted fields", 2004). Documents can be added,
// replaced and removed at any time; searches run concurrently with each other.
type Index struct {
	mu       sync.RWMutex
	an       *Analyzer
	params   Params
	fields   []Field
	terms    map[string]*termEntry
	docs     []docEntry
	flatLens []int32 // docs[d].lens at d*len(fields): the scoring loop reads one flat array
	gone     []bool  // docs[d].deleted, likewise
	version  int     // bumped by every change, so searches know when invNorm is stale

	normMu      sync.Mutex // guards the lazy refresh of invNorm under the read lock
	invNorm     []float64  // weight/(1-b+b·len/avg) per document and field; 0 for removed ones
	normVersion int
	byID        map[string]int32
	totals      []int64 // tokens per field over live documents
	live        int
	dead        int
	langs       map[string]int // detected languages of live documents, for queries that give no sign
	language    string         // the most common of langs
}

// NewIndex makes an empty index over the fields (at most 255).
func NewIndex(an *Analyzer, params Params, fields ...Field) *Index {
	if len(fields) == 0 || len(fields) > 255 {
		panic(fmt.Sprintf("search.NewIndex: %d fields", len(fields)))
	}
	return &Index{
		an: an, params: params, fields: fields,
		terms: map[string]*termEntry{}, byID: map[string]int32{},
		totals: make([]int64, len(fields)), langs: map[string]int{},
	}
}

// Len is the number of live documents.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// Add indexes a document, replacing one with the same ID.
func (ix *Index) Add(d Doc) {
	lang := d.Lang
	if lang == "" {
		lang = ix.an.Language(strings.Join(d.Fields, "\n"), "")
	}
	// Analysis runs outside the lock: it is most of the cost.
	terms := make([][]string, len(ix.fields))
	for f := range ix.fields {
		if f < len(d.Fields) {
			terms[f] = ix.an.Terms(d.Fields[f], lang)
		}
	}
	ix.add(d.ID, terms, lang)
}

// AddTerms indexes a document from terms already analyzed, one list per field (for
// baselines and callers with their own analysis).
func (ix *Index) AddTerms(id string, fieldTerms [][]string) {
	ix.add(id, fieldTerms, "")
}

func (ix *Index) add(id string, fieldTerms [][]string, lang string) {
	counts := make([]map[string]int, len(ix.fields))
	lens := make([]int32, len(ix.fields))
	for f := range ix.fields {
		m := map[string]int{}
		if f < len(fieldTerms) {
			for _, t := range fieldTerms[f] {
				m[t]++
			}
			lens[f] = int32(len(fieldTerms[f]))
		}
		counts[f] = m
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(id)
	n := int32(len(ix.docs))
	seen := map[string]bool{}
	var distinct []string
	for f, m := range counts {
		for t, c := range m {
			e := ix.terms[t]
			if e == nil {
				e = &termEntry{}
				ix.terms[t] = e
			}
			e.postings = append(e.postings, posting{doc: n, field: uint8(f), tf: uint16(min(c, math.MaxUint16))})
			if !seen[t] {
				seen[t] = true
				distinct = append(distinct, t)
				e.df++
			}
		}
		ix.totals[f] += int64(lens[f])
	}
	ix.docs = append(ix.docs, docEntry{id: id, lens: lens, terms: distinct, lang: lang})
	ix.flatLens = append(ix.flatLens, lens...)
	ix.gone = append(ix.gone, false)
	ix.byID[id] = n
	ix.live++
	ix.version++
	if lang != "" {
		ix.countLang(lang, 1)
	}
}

// Size reports the distinct terms and an estimate of the bytes the postings and terms hold.
func (ix *Index) Size() (terms int, bytes int64) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for t, e := range ix.terms {
		bytes += int64(len(t)) + 16 + int64(cap(e.postings))*8
	}
	return len(ix.terms), bytes
}

// Remove drops a document; an unknown ID is not an error.
func (ix *Index) Remove(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(id)
}

func (ix *Index) removeLocked(id string) {
	n, ok := ix.byID[id]
	if !ok {
		return
	}
	d := &ix.docs[n]
	for _, t := range d.terms {
		ix.terms[t].df--
	}
	for f, l := range d.lens {
		ix.totals[f] -= int64(l)
	}
	if d.lang != "" {
		ix.countLang(d.lang, -1)
	}
	d.deleted, d.terms = true, nil
	ix.gone[n] = true
	ix.version++
	delete(ix.byID, id)
	ix.live--
	ix.dead++
	if ix.dead > 64 && ix.dead > ix.live {
		ix.compactLocked()
	}
}

// compactLocked drops the postings of removed documents and renumbers the rest.
func (ix *Index) compactLocked() {
	renum := make([]int32, len(ix.docs))
	docs := ix.docs[:0:0]
	for i, d := range ix.docs {
		renum[i] = -1
		if !d.deleted {
			renum[i] = int32(len(docs))
			ix.byID[d.id] = int32(len(docs))
			docs = append(docs, d)
		}
	}
	for t, e := range ix.terms {
		kept := e.postings[:0]
		for _, p := range e.postings {
			if r := renum[p.doc]; r >= 0 {
				p.doc = r
				kept = append(kept, p)
			}
		}
		if len(kept) == 0 {
			delete(ix.terms, t)
			continue
		}
		e.postings = kept
	}
	ix.docs, ix.dead = docs, 0
	ix.flatLens, ix.gone = ix.flatLens[:0], ix.gone[:0]
	for _, d := range docs {
		ix.flatLens = append(ix.flatLens, d.lens...)
		ix.gone = append(ix.gone, false)
	}
}

// countLang keeps the most common document language current.
func (ix *Index) countLang(lang string, delta int) {
	ix.langs[lang] += delta
	if ix.langs[lang] <= 0 {
		delete(ix.langs, lang)
	}
	best, n := "", 0
	for l, c := range ix.langs {
		if c > n || (c == n && l < best) {
			best, n = l, c
		}
	}
	ix.language = best
}

// Search ranks the documents for a query and returns up to k hits with a positive score, best
// first (ties by insertion order). A query that gives no sign of its language is analyzed in
// the index's most common document language.
func (ix *Index) Search(query string, k int) []Hit {
	ix.mu.RLock()
	fallback := ix.language
	ix.mu.RUnlock()
	if !isLatinLanguage(fallback) {
		fallback = ""
	}
	qterms := ix.an.Terms(query, ix.an.Language(query, fallback))
	return ix.SearchTerms(qterms, k)
}

// SearchTerms ranks for terms already analyzed (a repeated term counts once).
//
// With k > 0 it prunes the way MaxScore does (Turtle and Flood, 1995), with the same result
// as scoring every posting: terms go by their highest possible contribution (idf·(k1+1)),
// rarest first, and once what the terms left could add to a document no longer reaches the
// k-th best score so far, no new document can enter the top k: the remaining terms are looked
// up (binary search in their postings, which are in document order) only for the documents
// that still can.
func (ix *Index) SearchTerms(qterms []string, k int) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 {
		return nil
	}
	k1 := ix.params.K1
	invNorm := ix.norms()
	nf := len(ix.fields)
	n := float64(ix.live)
	type qterm struct {
		e      *termEntry
		idf    float64
		strong uint16
	}
	qts := make([]qterm, 0, len(qterms))
	for i, t := range qterms {
		e := ix.terms[t]
		if e == nil || e.df <= 0 || slices.Contains(qterms[:i], t) {
			continue
		}
		df := float64(e.df)
		q := qterm{e: e, idf: math.Log(1 + (n-df+0.5)/(df+0.5)), strong: 1}
		if r, size := utf8.DecodeRuneInString(t); size == len(t) && isBigramScript(r) {
			q.strong = 0
		}
		qts = append(qts, q)
	}
	if len(qts) == 0 {
		return nil
	}
	prune := k > 0 && len(qts) > 1
	if prune {
		sort.SliceStable(qts, func(a, b int) bool { return qts[a].idf > qts[b].idf })
	}
	// rest[i] bounds what terms i… can add to one document's score.
	rest := make([]float64, len(qts)+1)
	for i := len(qts) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + qts[i].idf*(k1+1)
	}
	scores := make([]float64, len(ix.docs))
	matched := make([]uint16, len(ix.docs))
	var touched []int32
	best := 0.0
	// Postings of one document are adjacent: sum its fields' weighted, normalized
	// frequencies, then saturate once (BM25F).
	score := func(q qterm, d int32, acc float64) {
		if acc <= 0 {
			return
		}
		if scores[d] == 0 {
			touched = append(touched, d)
		}
		scores[d] += q.idf * acc * (k1 + 1) / (acc + k1)
		matched[d] += q.strong
		best = max(best, scores[d])
	}
	i := 0
	for ; i < len(qts); i++ {
		if prune && i > 0 && len(touched) >= k && rest[i] < best && rest[i] < kth(scores, touched, k) {
			break
		}
		q := qts[i]
		cur, acc := int32(-1), 0.0
		for _, p := range q.e.postings {
			if p.doc != cur {
				score(q, cur, acc)
				cur, acc = p.doc, 0
			}
			acc += float64(p.tf) * invNorm[int(p.doc)*nf+int(p.field)]
		}
		score(q, cur, acc)
	}
	if i < len(qts) {
		// No document outside touched can reach the k-th score: finish those that may.
		theta := kth(scores, touched, k)
		cands := touched[:0:0]
		isCand := make([]bool, len(ix.docs))
		for _, d := range touched {
			if scores[d]+rest[i] >= theta {
				cands = append(cands, d)
				isCand[d] = true
			}
		}
		slices.Sort(cands)
		for ; i < len(qts); i++ {
			q := qts[i]
			add := func(d int32, acc float64) {
				if acc > 0 {
					scores[d] += q.idf * acc * (k1 + 1) / (acc + k1)
					matched[d] += q.strong
				}
			}
			ps := q.e.postings
			if 4*len(cands)*bits.Len(uint(len(ps)/max(len(cands), 1))) >= len(ps) {
				// Looking each candidate up would cost more than one pass.
				cur, acc := int32(-1), 0.0
				for _, p := range ps {
					if !isCand[p.doc] {
						continue
					}
					if p.doc != cur {
						add(cur, acc)
						cur, acc = p.doc, 0
					}
					acc += float64(p.tf) * invNorm[int(p.doc)*nf+int(p.field)]
				}
				add(cur, acc)
				continue
			}
			// Candidates in document order, each found by galloping from the last one.
			lo := 0
			for _, d := range cands {
				step := 1
				for lo+step < len(ps) && ps[lo+step].doc < d {
					lo += step
					step *= 2
				}
				hi := min(lo+step, len(ps)-1)
				for lo < hi {
					if m := (lo + hi) / 2; ps[m].doc < d {
						lo = m + 1
					} else {
						hi = m
					}
				}
				acc := 0.0
				for ; lo < len(ps) && ps[lo].doc == d; lo++ {
					acc += float64(ps[lo].tf) * invNorm[int(d)*nf+int(ps[lo].field)]
				}
				add(d, acc)
			}
		}
		touched = cands
	}
	hits := ix.topK(scores, touched, k)
	for i := range hits {
		hits[i].Matched = int(matched[hits[i].doc])
	}
	return hits
}

// kth is the k-th highest score among touched (0 when fewer).
func kth(scores []float64, touched []int32, k int) float64 {
	if len(touched) < k {
		return 0
	}
	h := make([]float64, 0, k) // a min-heap of the k best
	for _, d := range touched {
		s := scores[d]
		if len(h) < k {
			h = append(h, s)
			for c := len(h) - 1; c > 0; {
				p := (c - 1) / 2
				if h[p] <= h[c] {
					break
				}
				h[p], h[c] = h[c], h[p]
				c = p
			}
			continue
		}
		if s <= h[0] {
			continue
		}
		h[0] = s
		for p := 0; ; {
			c := 2*p + 1
			if c >= k {
				break
			}
			if c+1 < k && h[c+1] < h[c] {
				c++
			}
			if h[p] <= h[c] {
				break
			}
			h[p], h[c] = h[c], h[p]
			p = c
		}
	}
	return h[0]
}

// norms returns each document field's weight over its BM25 length normalization, computed
// again only after the index changed (every average length moves with each document). Called
// under the read lock.
func (ix *Index) norms() []float64 {
	ix.normMu.Lock()
	defer ix.normMu.Unlock()
	if ix.invNorm != nil && ix.normVersion == ix.version {
		return ix.invNorm
	}
	nf, b := len(ix.fields), ix.params.B
	coef := make([]float64, nf)
	for f, t := range ix.totals {
		coef[f] = b / math.Max(float64(t)/float64(max(ix.live, 1)), 1)
	}
	out := make([]float64, len(ix.flatLens))
	for i, l := range ix.flatLens {
		f := i % nf
		if !ix.gone[i/nf] {
			out[i] = ix.fields[f].Weight / (1 - b + coef[f]*float64(l))
		}
	}
	ix.invNorm, ix.normVersion = out, ix.version
	return out
}

// topK ranks the touched documents (TopK) and returns the k best as hits.
func (ix *Index) topK(scores []float64, touched []int32, k int) []Hit {
	touched = TopK(scores, touched, k)
	hits := make([]Hit, 0, len(touched))
	for _, d := range touched {
		hits = append(hits, Hit{ID: ix.docs[d].id, Score: scores[d], doc: d})
	}
	return hits
}
