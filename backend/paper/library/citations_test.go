package library

import (
	"reflect"
	"testing"

	"github.com/tofu-research/tofu/backend/store"
)

// A citation of a page that no passage given to the model is on is found; the forms models
// write are read, other brackets are not citations.
func TestUnsupportedCitations(t *testing.T) {
	t.Parallel()
	rec := store.Retrieval{Chunks: []store.RetrievedChunk{{ID: 1, Pages: []int{3, 4}}, {ID: 7, Pages: []int{7}}}}
	answer := "Two sets [p. 3]. Hard ones [p. 9]. Both [p. 4; p. 12], see [pp. 6-7] and [12] and [page 2]."
	if got := CitedPages(answer); !reflect.DeepEqual(got, []int{3, 9, 4, 12, 6, 7}) {
		t.Errorf("cited %v", got)
	}
	if got := EvidencePages(rec); !reflect.DeepEqual(got, []int{3, 4, 7}) {
		t.Errorf("evidence %v", got)
	}
	if got := UnsupportedCitations(answer, rec); !reflect.DeepEqual(got, []int{9, 12, 6}) {
		t.Errorf("unsupported %v", got)
	}
}
