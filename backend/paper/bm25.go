package paper

import (
	"strconv"

	"github.com/tofu-research/tofu/backend/search"
)

// chunkFields are what a chunk is searched by: its section title and its text, weighed
// alike (search.BEIRFields' reasoning: nothing measured says otherwise).
var chunkFields = []search.Field{{Name: "section", Weight: 1}, {Name: "text", Weight: 1}}

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
	ix := &Index{chunks: chunks, index: search.NewIndex(an, search.DefaultParams, chunkFields...)}
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
