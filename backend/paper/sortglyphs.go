package paper

import (
	"cmp"
	"slices"
)

// sortGlyphs orders gs by key, ascending (or descending when desc), keeping glyphs with equal
// keys in their order: what slices.SortStableFunc gives, at a fraction of its cost. The
// stable sort of 56-byte glyphs (insertion sort and in-place merges, every swap a string
// pointer written through the GC's barrier) was a seventh of extraction's CPU; this sorts
// 16-byte (key, position) pairs, whose positions break ties, and moves each glyph once.
func (sc *scratch) sortGlyphs(gs []glyph, desc bool, key func(*glyph) float64) {
	sign := 1.0
	if desc {
		sign = -1
	}
	sorted := true
	for i := 1; i < len(gs) && sorted; i++ {
		sorted = sign*key(&gs[i]) >= sign*key(&gs[i-1])
	}
	if sorted {
		return // already in order (a row's glyphs usually are): the stable sort moves nothing
	}
	keys := reuse(&sc.keys, len(gs), sc.room)
	for i := range gs {
		keys[i] = sortKey{sign * key(&gs[i]), int32(i)}
	}
	sc.sortKeys(keys)
	tmp := reuse(&sc.sorted, len(gs), 0)
	for i, k := range keys {
		tmp[i] = gs[k.i]
	}
	copy(gs, tmp)
}

// sortKey is a glyph's sort key and its position, which orders equal keys.
type sortKey struct {
	k float64
	i int32
}

// sortKeys sorts keys by key, then position. Keys are made in position order, and a page's
// text comes mostly in a few runs already in order (a column read top to bottom, a line left
// to right, then a footnote, a superscript added at the end): runs in order are merged, in
// time proportional to n log(runs); many runs go to a quicksort.
func (sc *scratch) sortKeys(keys []sortKey) {
	runs := 1
	for j := 1; j < len(keys); j++ {
		if keys[j].k < keys[j-1].k {
			runs++
		}
	}
	switch {
	case runs == 1:
		return
	case runs > 16 && runs > len(keys)/16:
		slices.SortFunc(keys, func(a, b sortKey) int {
			if c := cmp.Compare(a.k, b.k); c != 0 {
				return c
			}
			return cmp.Compare(a.i, b.i)
		})
		return
	}
	// Bounds of the runs, then merges of neighbouring runs until one is left. On equal keys
	// the left run, of the earlier positions, goes first: the order stays by position.
	bounds := make([]int, 0, runs+1)
	bounds = append(bounds, 0)
	for j := 1; j < len(keys); j++ {
		if keys[j].k < keys[j-1].k {
			bounds = append(bounds, j)
		}
	}
	bounds = append(bounds, len(keys))
	src, dst := keys, reuse(&sc.merged, len(keys), sc.room)
	for len(bounds) > 2 {
		next := bounds[:1]
		for r := 0; r+1 < len(bounds); r += 2 {
			lo, mid := bounds[r], bounds[r+1]
			hi := mid
			if r+2 < len(bounds) {
				hi = bounds[r+2]
			}
			mergeKeys(dst[lo:hi], src[lo:mid], src[mid:hi])
			next = append(next, hi)
		}
		bounds = next
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// mergeKeys merges the sorted a and b into out, a first on equal keys.
func mergeKeys(out, a, b []sortKey) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j].k < a[i].k {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}

func glyphX(g *glyph) float64 { return g.X }
func glyphY(g *glyph) float64 { return g.Y }
