package paper

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Layout thresholds, in units of the font size.
const (
	wordGap     = 0.15 // a gap wider than this between glyphs is a space
	fragmentGap = 1.0  // a gap wider than this splits a row into fragments
	rowTol      = 0.5  // baselines closer than this share a row (sub/superscripts)
)

// line is one line of text in reading order.
type line struct {
	text     string
	box      BBox
	size     float64
	bold     bool
	col      int // 0 spans the page, 1 left column, 2 right column
	group    int // reading-order group: a band of one column, or a full-width band
	vertical bool
}

// frag is a horizontal run of glyphs on one row with no wide gap inside.
type frag struct {
	glyphs []glyph
	row    int
	box    BBox
	col    int
}

// layoutPage turns glyphs into lines in reading order.
func (sc *scratch) layoutPage(gs []glyph, page BBox) []line {
	sc.room = cap(gs)
	gs = cleanGlyphs(gs)
	nv := 0
	for i := range gs {
		if gs[i].Vertical {
			nv++
		}
	}
	horiz, vert := gs, []glyph(nil)
	if nv > 0 {
		horiz, vert = make([]glyph, 0, len(gs)-nv), make([]glyph, 0, nv)
		for _, g := range gs {
			if g.Vertical {
				vert = append(vert, g)
			} else {
				horiz = append(horiz, g)
			}
		}
	}
	lines := sc.layoutHorizontal(horiz, page)
	if len(vert) > 0 {
		next := 0
		for _, l := range lines {
			next = max(next, l.group+1)
		}
		lines = append(lines, sc.layoutVertical(vert, next)...)
	}
	return lines
}

// cleanGlyphs drops blank glyphs and the duplicates some producers draw to
// fake bold type.
func cleanGlyphs(gs []glyph) []glyph {
	out := gs[:0]
	for _, g := range gs {
		if blank(g.S) {
			continue
		}
		if math.IsNaN(g.X+g.Y+g.W+g.Size) || math.IsInf(g.X+g.Y+g.W+g.Size, 0) {
			continue
		}
		if g.Size <= 0.1 {
			g.Size = 1
		}
		dup := false
		for k := len(out) - 1; k >= 0 && k >= len(out)-4; k-- {
			p := out[k]
			if p.S == g.S && math.Abs(p.X-g.X) < 0.2*g.Size && math.Abs(p.Y-g.Y) < 0.2*g.Size {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, g)
		}
	}
	return out
}

// blank reports whether s is only white space and NULs.
func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			return strings.TrimFunc(s[i:], func(r rune) bool { return unicode.IsSpace(r) || r == 0 }) == ""
		} else if c != ' ' && c != 0 && (c < '\t' || c > '\r') {
			return false
		}
	}
	return true
}

type row struct {
	base, size float64
	glyphs     []glyph
	n          int // glyphs of the row while clusterRows counts them
}

// rows clusters glyphs by baseline. Glyphs of the usual size go first; the
// smaller ones (superscripts, subscripts, footnote marks) then join the
// row they sit on when one is close by, so "tools¹" stays on its line.
func (sc *scratch) rows(gs []glyph) []row {
	sizes := reuse(&sc.sizes, len(gs), sc.room)
	for i, g := range gs {
		sizes[i] = g.Size
	}
	sort.Float64s(sizes)
	median := sizes[len(sizes)/2]
	// Glyphs are handled by position in gs: the groups below are lists of positions.
	ns, nh := 0, 0
	for i := range gs {
		if gs[i].Hang {
			nh++
		} else if gs[i].Size < 0.8*median {
			ns++
		}
	}
	normal := reuse(&sc.normal, len(gs)-ns-nh, sc.room)[:0]
	small, hanging := reuse(&sc.small, ns, 0)[:0], reuse(&sc.hanging, nh, 0)[:0]
	// Every glyph goes to one row, through one of the three clusterRows below.
	reuse(&sc.rowGlyphs, len(gs), sc.room)
	sc.rowUsed = 0
	for i := range gs {
		if gs[i].Hang {
			hanging = append(hanging, int32(i))
		} else if gs[i].Size < 0.8*median {
			small = append(small, int32(i))
		} else {
			normal = append(normal, int32(i))
		}
	}
	rs := sc.clusterRows(gs, normal, sc.rowList[:0])
	rest := small[:0]
	for _, i := range small {
		if k := attachRow(rs, gs[i]); k >= 0 {
			rs[k].glyphs = append(rs[k].glyphs, gs[i])
		} else {
			rest = append(rest, i)
		}
	}
	rs = sc.clusterRows(gs, rest, rs)
	// Hanging glyphs last, when every row they could reach is there: an equation set small
	// in a figure has its rows only once the small glyphs have made them.
	left := hanging[:0]
	for _, i := range hanging {
		if k := attachHanging(rs, gs[i]); k >= 0 {
			g := gs[i]
			g.Y = rs[k].base
			rs[k].glyphs = append(rs[k].glyphs, g)
		} else {
			left = append(left, i)
		}
	}
	rs = sc.clusterRows(gs, left, rs)
	sc.rowList = rs
	slices.SortStableFunc(rs, func(a, b row) int { return cmp.Compare(b.base, a.base) })
	return rs
}

// attachRow finds the row a small glyph belongs to: the row of the nearest glyph beside it
// (within two sizes) whose baseline is within [-0.4, +0.7] of that glyph's size from its
// own. It measures against the neighbour, not the row: a row can hold both columns' lines
// where their baselines are within rowTol, and its baseline is then the other column's
// (specter's abstract, set at 10 pt beside 10.9 pt body text, read "a vari¹ety").
func attachRow(rs []row, g glyph) int {
	best, bestD := -1, math.Inf(1)
	for k := range rs {
		r := &rs[k]
		if d := g.Y - r.base; d < -1.5*r.size || d > 1.5*r.size {
			continue
		}
		// A few neighbours tell the baseline beside the glyph; looking at every one made a
		// row of N glyphs beside M small ones cost N×M (a hostile page: 50,000 each).
		near := 0
		for _, o := range r.glyphs {
			if g.X > o.X+o.W+2*o.Size || g.X+g.W < o.X-2*o.Size {
				continue
			}
			if near++; near > 8 {
				break
			}
			d := g.Y - o.Y
			if d < -0.4*o.Size || d > 0.7*o.Size || math.Abs(d) >= bestD {
				continue
			}
			best, bestD = k, math.Abs(d)
		}
	}
	return best
}

// attachHanging finds the row a glyph drawn down from its origin belongs to (a large
// delimiter or operator of TeX's extension font, fontHangs): the first row below the origin
// that the glyph reaches, its baseline within three sizes (TeX's largest delimiters are
// three ems deep) and a glyph of the row within two sizes beside it.
func attachHanging(rs []row, g glyph) int {
	best, bestD := -1, math.Inf(1)
	for k := range rs {
		r := &rs[k]
		d := g.Y - r.base
		if d < -0.1*r.size || d > 3*g.Size || d >= bestD {
			continue
		}
		for _, o := range r.glyphs {
			if g.X <= o.X+o.W+2*r.size && g.X+g.W >= o.X-2*r.size {
				best, bestD = k, d
				break
			}
		}
	}
	return best
}

// clusterRows adds rows for the glyphs of gs at positions idx (ascending) to rs, taking them
// from the highest baseline down, each joining the row of a close baseline. Rows are found
// first and filled after, so that each gets its glyphs in one stretch of the page's.
func (sc *scratch) clusterRows(gs []glyph, idx []int32, rs []row) []row {
	keys := reuse(&sc.keys, len(idx), sc.room)
	for j, i := range idx {
		keys[j] = sortKey{-gs[i].Y, i}
	}
	sc.sortKeys(keys)
	first := len(rs)
	rowOf := reuse(&sc.rowOf, len(keys), sc.room)
	for i, key := range keys {
		g := &gs[key.i]
		best := -1
		for k := len(rs) - 1; k >= first; k-- {
			r := &rs[k]
			if r.base-g.Y > 3*max(r.size, g.Size) {
				break
			}
			if math.Abs(r.base-g.Y) <= rowTol*max(r.size, g.Size) {
				best = k
				break
			}
		}
		rowOf[i] = int32(best)
		if best < 0 {
			rowOf[i] = int32(len(rs))
			rs = append(rs, row{base: g.Y, size: g.Size, n: 1})
			continue
		}
		r := &rs[best]
		r.n++
		if g.Size > r.size*1.05 {
			r.base, r.size = g.Y, g.Size
		}
	}
	for k := first; k < len(rs); k++ {
		rs[k].glyphs = sc.takeRowGlyphs(rs[k].n)
	}
	for i, key := range keys {
		r := &rs[rowOf[i]]
		r.glyphs = append(r.glyphs, gs[key.i])
	}
	return rs
}

func (sc *scratch) layoutHorizontal(gs []glyph, page BBox) []line {
	if len(gs) == 0 {
		return nil
	}
	frags := sc.frags[:0]
	rs := sc.rows(gs)
	for _, r := range rs {
		sc.sortGlyphs(r.glyphs, false, glyphX)
	}
	stripLineNumbers(rs)
	for ri, r := range rs {
		if len(r.glyphs) == 0 {
			continue
		}
		start := 0
		for i := 1; i <= len(r.glyphs); i++ {
			if i < len(r.glyphs) {
				p, g := r.glyphs[i-1], r.glyphs[i]
				if g.X-(p.X+p.W) <= fragmentGap*max(p.Size, g.Size) {
					continue
				}
			}
			frags = append(frags, newFrag(r.glyphs[start:i], ri))
			start = i
		}
	}
	sc.frags = frags
	frags = dropMarginNumbers(frags, page)
	gutter, ok := sc.findGutter(frags)
	if ok {
		frags = splitAtGutter(frags, gutter, &sc.split)
	}
	for i := range frags {
		frags[i].col = 0
		if ok {
			frags[i].col = side(frags[i], gutter)
		}
	}
	return sc.orderLines(frags)
}

// stripLineNumbers removes review line numbers set close to the text: a run
// of digits opening a row, followed by a gap, whose right edge lines up with
// that of at least five other rows on the page.
func stripLineNumbers(rs []row) {
	type hit struct{ row, n int }
	byEdge := map[int][]hit{}
	for ri, r := range rs {
		n := 0
		for n < len(r.glyphs) && n < 4 && isDigits(r.glyphs[n].S) {
			n++
		}
		if n == 0 {
			continue
		}
		last := r.glyphs[n-1]
		if n < len(r.glyphs) && r.glyphs[n].X-(last.X+last.W) < 0.5*last.Size {
			continue
		}
		edge := int(math.Round((last.X + last.W) / 2))
		byEdge[edge] = append(byEdge[edge], hit{ri, n})
	}
	for edge, hits := range byEdge {
		all := append(append([]hit(nil), hits...), byEdge[edge+1]...)
		if len(all) < 5 {
			continue
		}
		for _, h := range hits {
			rs[h.row].glyphs = rs[h.row].glyphs[h.n:]
		}
	}
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func newFrag(gs []glyph, r int) frag {
	f := frag{glyphs: gs, row: r, box: BBox{X0: math.Inf(1), Y0: math.Inf(1), X1: math.Inf(-1), Y1: math.Inf(-1)}}
	for _, g := range gs {
		f.box.X0 = min(f.box.X0, g.X)
		f.box.X1 = max(f.box.X1, g.X+max(g.W, 0))
		f.box.Y0 = min(f.box.Y0, g.Y-0.2*g.Size)
		f.box.Y1 = max(f.box.Y1, g.Y+0.75*g.Size)
	}
	return f
}

func (f frag) size() float64 {
	s := 0.0
	for _, g := range f.glyphs {
		s = max(s, g.Size)
	}
	return s
}

// dropMarginNumbers removes review line numbers and other stacked margin
// marks: short tokens outside the body text, aligned on one x position.
func dropMarginNumbers(frags []frag, page BBox) []frag {
	left, right := bodyEdges(frags)
	if left >= right {
		return frags
	}
	type key struct{ side, x int }
	counts := map[key]int{}
	marginal := func(f frag) (key, bool) {
		if len(f.glyphs) > 4 || !shortMark(f) {
			return key{}, false
		}
		switch {
		case f.box.X1 <= left+1:
			return key{0, int(math.Round(f.box.X1 / 4))}, true
		case f.box.X0 >= right-1:
			return key{1, int(math.Round(f.box.X0 / 4))}, true
		}
		return key{}, false
	}
	for _, f := range frags {
		if k, ok := marginal(f); ok {
			counts[k]++
		}
	}
	out := frags[:0]
	for _, f := range frags {
		if k, ok := marginal(f); ok && counts[k] >= 4 {
			continue
		}
		out = append(out, f)
	}
	return out
}

func shortMark(f frag) bool {
	digits := true
	for _, g := range f.glyphs {
		for _, r := range g.S {
			if !unicode.IsDigit(r) {
				digits = false
			}
		}
	}
	return digits || len(f.glyphs) == 1
}

// bodyEdges returns the left and right edges of the lines of running text:
// fragments at least a fifth of the text width wide.
func bodyEdges(frags []frag) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range frags {
		lo, hi = min(lo, f.box.X0), max(hi, f.box.X1)
	}
	minW := (hi - lo) / 5
	l, r := math.Inf(1), math.Inf(-1)
	for _, f := range frags {
		if f.box.X1-f.box.X0 >= minW {
			l, r = min(l, f.box.X0), max(r, f.box.X1)
		}
	}
	return l, r
}

type gutterPos struct{ x0, x1, size float64 }

const maxPageWidth = 14400

// findGutter looks for the vertical strip between two columns: a run of x
// positions in the middle of the text that few fragments cross, with full
// lines of text on both sides.
func (sc *scratch) findGutter(frags []frag) (gutterPos, bool) {
	lo, hi := bodyEdges(frags)
	// The strip is looked for point by point, so the text's width sizes a table: one glyph at
	// a font size of 10^9 (a 900-byte file) asked for 4 GB, a fatal out-of-memory. Text wider
	// than the largest page PDF allows (14,400 units, PDF 32000-1 annex C) is not two columns
	// on a page.
	if !(hi-lo > 100) || hi-lo > maxPageWidth {
		return gutterPos{}, false
	}
	width := int(hi-lo) + 1
	cover := reuse(&sc.cover, width, 0)
	clear(cover)
	sizes := reuse(&sc.sizes, len(frags), 0)[:0]
	for _, f := range frags {
		a := max(0, int(f.box.X0-lo))
		b := min(width-1, int(f.box.X1-lo))
		for x := a; x <= b; x++ {
			cover[x]++
		}
		sizes = append(sizes, f.size())
	}
	sort.Float64s(sizes)
	size := sizes[len(sizes)/2]
	from, to := int(0.3*float64(width)), int(0.7*float64(width))
	minC := math.MaxInt
	for x := from; x <= to; x++ {
		minC = min(minC, cover[x])
	}
	if minC > len(frags)/8 {
		return gutterPos{}, false
	}
	bestA, bestLen := 0, 0
	for x := from; x <= to; {
		if cover[x] != minC {
			x++
			continue
		}
		a := x
		for x <= to && cover[x] == minC {
			x++
		}
		if x-a > bestLen {
			bestA, bestLen = a, x-a
		}
	}
	if float64(bestLen) < 0.3*size {
		return gutterPos{}, false
	}
	g := gutterPos{x0: lo + float64(bestA), x1: lo + float64(bestA+bestLen), size: size}
	colW := (hi - lo) / 2
	nl, nr := 0, 0
	for _, f := range frags {
		w := f.box.X1 - f.box.X0
		if w < 0.6*colW {
			continue
		}
		switch side(f, g) {
		case 1:
			nl++
		case 2:
			nr++
		}
	}
	return g, nl >= 3 && nr >= 3
}

// splitAtGutter splits a fragment that crosses the gutter where it is two lines, one of each
// column, set close enough to read as one: a gap of at least half a size (wider than the
// spaces of a justified line) with the gutter between its ends, after which the text starts
// where the right column's lines start. A left-column line that runs to the column's edge
// (code in a monospace font, "’sample’: [0, 10 ** -6, 10 ** -5],") joined the right
// column's line beside it; as one fragment across the gutter it was read as full-width,
// which cut the page's columns into bands read out of order (specter's appendix). The
// fragments, split, are written to *buf, or frags is returned as it is.
func splitAtGutter(frags []frag, g gutterPos, buf *[]frag) []frag {
	// The right column's left edge: where its lines start, the smallest start of the
	// fragments right of the gutter that are as wide as a line of a column.
	start := math.Inf(1)
	n := 0
	for _, f := range frags {
		if side(f, g) == 2 && f.box.X1-f.box.X0 > 10*g.size {
			start = min(start, f.box.X0)
			n++
		}
	}
	if n < 3 {
		return frags
	}
	out := (*buf)[:0]
	defer func() { *buf = out }()
	for _, f := range frags {
		cut := -1
		if side(f, g) == 0 {
			for i := 1; i < len(f.glyphs); i++ {
				p, q := f.glyphs[i-1], f.glyphs[i]
				end := p.X + p.W
				if q.X-end >= 0.5*g.size && end <= g.x1 && end >= g.x0-2*g.size && math.Abs(q.X-start) <= 0.1*g.size {
					cut = i
					break
				}
			}
		}
		if cut < 0 {
			out = append(out, f)
			continue
		}
		out = append(out, newFrag(f.glyphs[:cut], f.row), newFrag(f.glyphs[cut:], f.row))
	}
	return out
}

// side puts a fragment left (1) or right (2) of the gutter, or across it (0)
// when it reaches well into both columns.
func side(f frag, g gutterPos) int {
	slack := 2 * g.size
	if f.box.X1 <= g.x1+slack && f.box.X0 < g.x0 {
		if f.box.X1 <= g.x0+slack {
			return 1
		}
	}
	if f.box.X0 >= g.x0-slack && f.box.X1 > g.x1 {
		return 2
	}
	if f.box.X0 < g.x0-slack && f.box.X1 > g.x1+slack {
		return 0
	}
	if (g.x0+g.x1)/2-f.box.X0 > f.box.X1-(g.x0+g.x1)/2 {
		return 1
	}
	return 2
}

// orderLines reads bands top to bottom: inside a band between full-width
// fragments, the whole left column comes before the right one.
func (sc *scratch) orderLines(frags []frag) []line {
	slices.SortStableFunc(frags, func(a, b frag) int {
		if a.row != b.row {
			return cmp.Compare(a.row, b.row)
		}
		return cmp.Compare(a.box.X0, b.box.X0)
	})
	// A line is one run of fragments of a row and a column or more: room for every run is
	// room for every line, made once (regrown line by line, it was allocated twice over).
	runs := 0
	for i := range frags {
		if i == 0 || frags[i].row != frags[i-1].row || frags[i].col != frags[i-1].col {
			runs++
		}
	}
	out := make([]line, 0, runs)
	group := 0
	left, right, full := sc.left[:0], sc.right[:0], sc.full[:0]
	defer func() { sc.left, sc.right, sc.full = left, right, full }()
	flushCols := func() {
		for _, part := range [2][]frag{left, right} {
			if len(part) > 0 {
				out = sc.mergeRows(out, part, group)
				group++
			}
		}
		left, right = left[:0], right[:0]
	}
	flushFull := func() {
		if len(full) > 0 {
			out = sc.mergeRows(out, full, group)
			group++
			full = full[:0]
		}
	}
	for _, f := range frags {
		switch f.col {
		case 0:
			flushCols()
			full = append(full, f)
		case 1:
			flushFull()
			left = append(left, f)
		default:
			flushFull()
			right = append(right, f)
		}
	}
	flushFull()
	flushCols()
	return out
}

// mergeRows joins the fragments of one group that share a row into lines, appended to out.
func (sc *scratch) mergeRows(out []line, frags []frag, group int) []line {
	for i := 0; i < len(frags); {
		j, n := i, 0
		for ; j < len(frags) && frags[j].row == frags[i].row; j++ {
			n += len(frags[j].glyphs)
		}
		gs := frags[i].glyphs // a row in one fragment: its glyphs as they are
		if j > i+1 {
			gs = reuse(&sc.joined, n, 0)[:0]
			for _, f := range frags[i:j] {
				gs = append(gs, f.glyphs...)
			}
		}
		l := newLine(gs, frags[i].col, group)
		if l.text != "" {
			out = append(out, l)
		}
		i = j
	}
	return out
}

func newLine(gs []glyph, col, group int) line {
	l := line{col: col, group: group, box: newFrag(gs, 0).box}
	// The size carrying the most characters (the larger on a tie); a line has few sizes.
	type sizeCount struct {
		size float64
		n    int
	}
	var buf [8]sizeCount
	sizes := buf[:0]
	bold := 0
	for _, g := range gs {
		s, n := math.Round(g.Size*2)/2, utf8.RuneCountInString(g.S)
		k := 0
		for k < len(sizes) && sizes[k].size != s {
			k++
		}
		if k == len(sizes) {
			sizes = append(sizes, sizeCount{s, 0})
		}
		sizes[k].n += n
		if g.Bold {
			bold++
		}
	}
	best := 0
	for _, sc := range sizes {
		if sc.n > best || sc.n == best && sc.size > l.size {
			l.size, best = sc.size, sc.n
		}
	}
	l.bold = bold*2 > len(gs)
	l.text = normalizeText(glyphText(gs))
	return l
}
