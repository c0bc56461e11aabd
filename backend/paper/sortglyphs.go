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
func sortGlyphs(gs []glyph, desc bool, key func(*glyph) float64) {
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
	keys := make([]sortKey, len(gs))
	for i := range gs {
		keys[i] = sortKey{sign * key(&gs[i]), int32(i)}
	}
	sortKeys(keys)
	tmp := make([]glyph, len(gs))
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

// sortKeys sorts keys by key, then position, unless they already are.
func sortKeys(keys []sortKey) {
	for j := 1; j < len(keys); j++ {
		if keys[j].k < keys[j-1].k {
			slices.SortFunc(keys, func(a, b sortKey) int {
				if c := cmp.Compare(a.k, b.k); c != 0 {
					return c
				}
				return cmp.Compare(a.i, b.i)
			})
			return
		}
	}
}

func glyphX(g *glyph) float64 { return g.X }
func glyphY(g *glyph) float64 { return g.Y }
