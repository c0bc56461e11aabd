package paper

// scratch is one page worker's working space for laying out its pages: the sort keys, lists
// of positions and copies of glyphs that a page's layout needs and that no page keeps (a
// page's lines are new strings). Made afresh for every page, and for every row of it, they
// were most of what an extraction allocated (naacl2006: 4.5 of 11.3 MB), each a fresh
// stretch of heap for the one-shot process to fault in and for its collector to sweep.
// Pages are laid out in parallel, each worker with its own scratch: nothing in it is shared.
type scratch struct {
	sizes                  []float64 // glyph or fragment sizes, for their median
	normal, small, hanging []int32   // rows: positions of the glyphs of each kind
	keys                   []sortKey // clusterRows and sortGlyphs: the keys to sort
	merged                 []sortKey // sortKeys: the other side of its merges
	rowOf                  []int32   // clusterRows: the row of each key
	rowGlyphs              []glyph   // the glyphs of a page's rows, each row a part of it
	rowUsed                int       // how much of rowGlyphs the page's rows hold
	sorted                 []glyph   // sortGlyphs: the glyphs in their new order
	joined                 []glyph   // mergeRows: the fragments of a row, joined
	rowList                []row
	frags, split           []frag
	left, right, full      []frag // orderLines: the fragments of the band being read
	cover                  []int  // findGutter: fragments over each x position
	room                   int    // the capacity of the page's glyph buffer
}

// reuse returns *buf resized to n, allocating only when its capacity is short: n, or room
// up to twice n. What it holds is what its last use left: callers write each element
// before they read it. A buffer sized by the page's glyphs is given the capacity of the
// page's glyph buffer as room, so that it grows when that grows, not at every page larger
// than the last.
func reuse[T any](buf *[]T, n, room int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, max(n, min(room, 2*n)))
	}
	*buf = (*buf)[:n]
	return *buf
}

// takeRowGlyphs returns room for n glyphs of the page's rows, empty, with a capacity of
// exactly n: a glyph appended past it reallocates, never writing over the next row's.
func (sc *scratch) takeRowGlyphs(n int) []glyph {
	s := sc.rowGlyphs[sc.rowUsed : sc.rowUsed : sc.rowUsed+n]
	sc.rowUsed += n
	return s
}
