package paper

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/search"
)

// chunkFields are what a chunk is searched by: its section title and its text, weighed
// alike (search.BEIRFields' reasoning: nothing measured says otherwise).
var chunkFields = []search.Field{{Name: "section", Weight: 1}, {Name: "text", Weight: 1}}

// passageParams are BM25's for passages: Anserini's defaults (k1 0.9, b 0.4), milder on length
// than search.DefaultParams' b 0.75. Passages are cut to about one size at paragraph ends, so
// what length they differ by is where a paragraph or section ended, not wordiness; full
// length normalization favours the short leftovers (a section's last lines, a figure's
// labels), which rarely hold an answer.
var passageParams = search.Params{K1: 0.9, B: 0.4}

// Index ranks a paper's chunks for a question with the retrieval engine (BM25F over the
// section title and the text, in any language). Built in memory from the chunks; deterministic.
type Index struct {
	chunks []Chunk
	index  *search.Index
}

// Hit is one retrieved chunk and its score.
type Hit struct {
	Chunk Chunk   `json:"chunk"`
	Score float64 `json:"score"`
}

// NewIndex indexes the chunks. The paper's language is detected once from its text, so the
// question and every chunk are stemmed alike.
func NewIndex(chunks []Chunk) *Index {
	an := search.NewAnalyzer()
	sample := ""
	for _, c := range chunks {
		if len(sample) > 8000 {
			break
		}
		sample += c.Text + "\n"
	}
	lang := an.Language(sample, "")
	ix := &Index{chunks: chunks, index: search.NewIndex(an, passageParams, chunkFields...)}
	for i, c := range chunks {
		ix.index.Add(search.Doc{ID: strconv.Itoa(i), Fields: []string{c.Section, c.Text}, Lang: lang})
	}
	return ix
}

// Search returns up to k chunks with a positive score, best first; ties go to the earlier
// chunk.
func (ix *Index) Search(query string, k int) []Hit {
	var hits []Hit
	for _, h := range ix.index.Search(query, k) {
		i, err := strconv.Atoi(h.ID)
		if err != nil || i < 0 || i >= len(ix.chunks) {
			continue // cannot happen: the IDs are the chunks' positions
		}
		hits = append(hits, Hit{Chunk: ix.chunks[i], Score: h.Score})
	}
	return hits
}

// PassagesPerQuestion is how many passages a question is answered from: the top passage's
// continuation, when it brings one, takes one of these places.
const PassagesPerQuestion = 5

// sectionRef is a section named by number in a question: "section 2.4", "Sec. 3", "§2.4".
var sectionRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\bsections?|\bsubsections?|\bsecs?\.?|§)\s*(\d{1,2}(?:\.\d{1,2}){0,3})\b`)
})

// Passages are what a question is answered from, in the order they are sent, at most k:
//   - the passages of a section the question names by number ("What does section 2.4 say?",
//     "What does section 4 say about patterns?"): the reader asked for that section, not for
//     what its words resemble. Best ranked first (in reading order when the question has no
//     other word of the section's), and at most k-1 of them, so the best passage elsewhere
//     still comes when the question reaches past the section;
//   - then the best-ranked passages; the top one, when it ends inside its section (the next
//     passage is of the same section), brings that next passage right after it: an answer
//     that runs on past a passage's end ("the first set … ; the second set …") is not cut off.
func (ix *Index) Passages(question string, k int) []Hit {
	var out []Hit
	seen := map[int]bool{}
	push := func(h Hit) {
		if len(out) < k && !seen[h.Chunk.ID] {
			seen[h.Chunk.ID] = true
			out = append(out, h)
		}
	}
	if refs := sectionRef().FindAllStringSubmatch(question, -1); len(refs) > 0 {
		// Ranked by the rest of the question: "section 3" named them, and its "3" is no word
		// of what is asked.
		score := map[int]float64{}
		for _, h := range ix.Search(sectionRef().ReplaceAllString(question, " "), len(ix.chunks)) {
			score[h.Chunk.ID] = h.Score
		}
		var named []Hit
		for _, m := range refs {
			for _, c := range ix.chunks {
				if n := sectionNumber(c.Section); n == m[1] || strings.HasPrefix(n, m[1]+".") {
					named = append(named, Hit{Chunk: c, Score: score[c.ID]})
				}
			}
		}
		sort.SliceStable(named, func(i, j int) bool { return named[i].Score > named[j].Score })
		for _, h := range named[:min(len(named), max(1, k-1))] {
			push(h)
		}
	}
	hits := ix.Search(question, k)
	for i, h := range hits {
		push(h)
		if i == 0 {
			if next := h.Chunk.ID + 1; next < len(ix.chunks) && ix.chunks[next].Section == h.Chunk.Section {
				push(Hit{Chunk: ix.chunks[next]})
			}
		}
	}
	return out
}

// sectionNumber is the number a section label starts with ("2.4" of "2.4 Negative examples"),
// without a trailing period.
func sectionNumber(section string) string {
	f := strings.Fields(section)
	if len(f) == 0 {
		return ""
	}
	n := strings.TrimSuffix(f[0], ".")
	for _, r := range n {
		if (r < '0' || r > '9') && r != '.' {
			return ""
		}
	}
	return n
}

// FormatPassage is a chunk as a model is given it: tagged with its id and (sub)section, its
// text opening with the page it starts on and marked where the page turns, so every claim
// can cite the exact page ("[p. 3]").
func FormatPassage(c Chunk) string {
	return fmt.Sprintf("<passage id=%d section=%q>\n%s %s\n</passage>", c.ID, c.Section, pageMarker(c.Page()), c.Text)
}
