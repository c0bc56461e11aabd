package search

import (
	"container/heap"
	"sort"
)

// TopK keeps the k best of the touched documents by score in a min-heap (the whole list when
// k ≤ 0), then sorts them: best first, ties to the earlier document. It may reorder touched.
// The history index ranks its own postings with it.
func TopK[D ~int32 | ~uint32](scores []float64, touched []D, k int) []D {
	better := func(a, c D) bool {
		if scores[a] != scores[c] {
			return scores[a] > scores[c]
		}
		return a < c
	}
	if k > 0 && len(touched) > k {
		h := &docHeap[D]{better: better}
		for _, d := range touched {
			if len(h.docs) < k {
				heap.Push(h, d)
			} else if better(d, h.docs[0]) {
				h.docs[0] = d
				heap.Fix(h, 0)
			}
		}
		touched = h.docs
	}
	sort.Slice(touched, func(a, c int) bool { return better(touched[a], touched[c]) })
	return touched
}

// docHeap is a min-heap of documents: the worst of the best k on top.
type docHeap[D ~int32 | ~uint32] struct {
	docs   []D
	better func(a, c D) bool
}

func (h *docHeap[D]) Len() int           { return len(h.docs) }
func (h *docHeap[D]) Less(i, j int) bool { return h.better(h.docs[j], h.docs[i]) }
func (h *docHeap[D]) Swap(i, j int)      { h.docs[i], h.docs[j] = h.docs[j], h.docs[i] }
func (h *docHeap[D]) Push(x any)         { h.docs = append(h.docs, x.(D)) }
func (h *docHeap[D]) Pop() any {
	x := h.docs[len(h.docs)-1]
	h.docs = h.docs[:len(h.docs)-1]
	return x
}
