package paper

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// glyphText spells a row of glyphs sorted by x, with a space wherever the gap
// exceeds wordGap times the font size. Spacing accents drawn over a letter
// become combining marks on it.
func glyphText(gs []glyph) string {
	gs = attachAccents(gs)
	var b strings.Builder
	n := len(gs)
	for i := range gs {
		n += len(gs[i].S)
	}
	b.Grow(n)
	var sup *glyph // the glyph a run of superscript digits is raised above
	for i, g := range gs {
		if i > 0 {
			p := gs[i-1]
			if g.X-(p.X+p.W) > wordGap*max(p.Size, g.Size) && !(isCJK(lastRune(p.S)) && isCJK(firstRune(g.S))) {
				b.WriteByte(' ')
			}
			if sup == nil || !isDigits(g.S) || g.X-(p.X+p.W) > wordGap*g.Size {
				sup = nil
				if isDigits(g.S) && !isDigits(p.S) && raisedMark(p, g) {
					sup = &gs[i-1]
				}
			}
		}
		if sup != nil {
			for _, r := range g.S {
				b.WriteRune(superDigits[r-'0'])
			}
			continue
		}
		b.WriteString(g.S)
	}
	return b.String()
}

// superDigits are the superscript forms of 0–9.
var superDigits = [10]rune{'⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'}

// raisedMark reports whether g, a digit after p, is set as a superscript: a smaller size
// (TeX's \footnotemark and exponents are some 70% of the text) on a baseline raised a fifth
// of p's size or more. It is written in superscript digits, so that a footnote mark cannot
// read as part of the word it follows ("fields4", "benchmark.1").
func raisedMark(p, g glyph) bool {
	return g.Size < 0.85*p.Size && g.Y-p.Y > 0.2*p.Size && g.Y-p.Y < 0.8*p.Size
}

func attachAccents(gs []glyph) []glyph {
	accents := false
	for i := range gs {
		if _, ok := combiningFor(gs[i].S); ok {
			accents = true
			break
		}
	}
	if !accents {
		return gs // most lines: nothing to attach, nothing to copy
	}
	out := make([]glyph, 0, len(gs))
	for i := 0; i < len(gs); i++ {
		g := gs[i]
		mark, ok := combiningFor(g.S)
		if !ok {
			out = append(out, g)
			continue
		}
		overlaps := func(o glyph) bool {
			return min(g.X+g.W, o.X+o.W)-max(g.X, o.X) > 0.3*max(g.W, 0.1) && isLetter(o.S)
		}
		switch {
		case i+1 < len(gs) && overlaps(gs[i+1]):
			n := gs[i+1]
			n.S += string(mark)
			out = append(out, n)
			i++
		case len(out) > 0 && overlaps(out[len(out)-1]):
			out[len(out)-1].S += string(mark)
		default:
			out = append(out, g)
		}
	}
	return out
}

func isLetter(s string) bool {
	r := firstRune(s)
	return unicode.IsLetter(r) || r == 'ı' || r == 'ȷ'
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// layoutVertical reads vertical writing: tiers top to bottom, in each tier
// the columns right to left and each column top to bottom; every column
// segment becomes a line.
func (sc *scratch) layoutVertical(gs []glyph, group int) []line {
	sc.sortGlyphs(gs, true, glyphY)
	var out []line
	start := 0
	for i := 1; i <= len(gs); i++ {
		if i < len(gs) && gs[i-1].Y-gs[i].Y <= 2*gs[i].Size {
			continue
		}
		out = append(out, sc.verticalColumns(gs[start:i], group)...) // sorted in place: tiers do not overlap
		if n := len(out); n > 0 {
			group = out[n-1].group + 1
		}
		start = i
	}
	return out
}

func (sc *scratch) verticalColumns(gs []glyph, group int) []line {
	sc.sortGlyphs(gs, true, glyphX)
	var out []line
	prevX := math.Inf(1)
	// A column is a run of gs, sorted right to left, whose glyphs stand within half a size of
	// its first one; it is sorted top to bottom where it lies.
	start := 0
	for i := 1; i <= len(gs); i++ {
		if i < len(gs) && math.Abs(gs[start].X-gs[i].X) <= 0.5*gs[i].Size {
			continue
		}
		c := gs[start:i]
		start = i
		sc.sortGlyphs(c, true, glyphY)
		var b strings.Builder
		n := 0
		for _, g := range c {
			n += len(g.S)
		}
		b.Grow(n)
		for _, g := range c {
			b.WriteString(g.S)
		}
		if !math.IsInf(prevX, 1) && prevX-c[0].X > 1.8*c[0].Size {
			group++
		}
		prevX = c[0].X
		l := line{text: normalizeText(b.String()), group: group, size: c[0].Size, vertical: true}
		l.box = BBox{X0: c[0].X, X1: c[0].X + c[0].Size, Y0: c[len(c)-1].Y - c[0].Size, Y1: c[0].Y}
		if l.text != "" {
			out = append(out, l)
		}
	}
	return out
}
