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
	if len(gs) < 2 {
		return
	}
	keys := make([]sortKey, len(gs))
	sorted := true
	for i := range gs {
		k := key(&gs[i])
		if desc {
			k = -k
		}
		keys[i] = sortKey{k, int32(i)}
		if i > 0 && k < keys[i-1].k {
			sorted = false
		}
	}
	if sorted {
		return // already in order (a row's glyphs usually are): the stable sort moves nothing
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	tmp := make([]glyph, len(gs))
	for i, k := range keys {
		tmp[i] = gs[k.i]
	}
	copy(gs, tmp)
}

type sortKey struct {
	k float64
	i int32
}

func glyphX(g *glyph) float64 { return g.X }
func glyphY(g *glyph) float64 { return g.Y }
