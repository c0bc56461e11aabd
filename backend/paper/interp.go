package paper

import (
	"fmt"
	"math"

	"github.com/ledongthuc/pdf"
)

// glyph is one shown character in page space (points, y up).
type glyph struct {
	S        string
	X, Y     float64 // origin of the glyph (baseline start)
	W        float64 // advance width along the writing direction
	Size     float64 // effective font size
	Vertical bool    // vertical writing mode (Identity-V)
	Bold     bool
}

type matrix [3][3]float64

var ident = matrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

func (x matrix) mul(y matrix) matrix {
	var z matrix
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				z[i][j] += x[i][k] * y[k][j]
			}
		}
	}
	return z
}

type gstate struct {
	Tc, Tw, Th, Tl, Tfs, Trise float64
	Tf                         *fontInfo
	Tm, Tlm, CTM               matrix
}

// maxFormDepth bounds recursion through nested form XObjects; a loop in a
// malformed file would otherwise never end.
const maxFormDepth = 8

// interpreter walks a page's content stream and records glyph positions.
// It replaces ledongthuc/pdf's Page.Content, which re-resolves the font's
// Widths array for every glyph (decompressing object streams each time) and
// ignores form XObjects, two-byte widths and vertical writing.
type interpreter struct {
	fonts  *fontCache
	glyphs []glyph
	spent  *budget // content bytes read, shared by the document's pages
	chars  *budget // glyphs kept, shared by the document's pages
}

// run interprets a page with the resources it inherits. A limit reached panics with the
// error, which readPage recovers.
func (in *interpreter) run(page pageRef) {
	in.content(page.v.Key("Contents"), page.resources, ident, 0)
}

func num(v pdf.Value) float64 {
	if v.Kind() == pdf.Integer {
		return float64(v.Int64())
	}
	return v.Float64()
}

func (in *interpreter) content(strm, res pdf.Value, ctm matrix, depth int) {
	if strm.IsNull() || depth > maxFormDepth {
		return
	}
	if err := checkContent(strm, in.spent); err != nil {
		panic(err)
	}
	g := gstate{Th: 1, CTM: ctm, Tm: ident, Tlm: ident}
	var stack []gstate
	fontsByName := map[string]*fontInfo{}

	show := func(raw string) {
		f := g.Tf
		if f == nil {
			return
		}
		for _, code := range f.split(raw) {
			w0 := f.width(code)
			trm := matrix{{g.Tfs * g.Th, 0, 0}, {0, g.Tfs, 0}, {0, g.Trise, 1}}.mul(g.Tm).mul(g.CTM)
			size := math.Hypot(trm[1][0], trm[1][1])
			a, b := trm[0][0], trm[0][1]
			upright := math.Abs(b) <= 0.05*math.Abs(a) && a > 0
			if s := f.decode(code); s != "" && (upright || f.vertical) {
				gl := glyph{S: s, X: trm[2][0], Y: trm[2][1], Size: size, Vertical: f.vertical, Bold: f.bold}
				if f.vertical {
					gl.W = size
				} else {
					gl.W = w0 / 1000 * a
				}
				// Past maxPageGlyphs a page's text is noise; past the document's count it
				// is an attack on memory.
				if len(in.glyphs) < maxPageGlyphs {
					if in.chars != nil && !in.chars.take(1) {
						panic(overLimit(fmt.Sprintf("it has more than %d characters of text", in.chars.limit)))
					}
					in.glyphs = append(in.glyphs, gl)
				}
			}
			if f.vertical {
				ty := -(w0/1000*g.Tfs + g.Tc)
				if len(code) == 1 && code[0] == ' ' {
					ty -= g.Tw
				}
				g.Tm = matrix{{1, 0, 0}, {0, 1, 0}, {0, ty, 1}}.mul(g.Tm)
				continue
			}
			tx := w0/1000*g.Tfs + g.Tc
			if len(code) == 1 && code[0] == ' ' {
				tx += g.Tw
			}
			tx *= g.Th
			g.Tm = matrix{{1, 0, 0}, {0, 1, 0}, {tx, 0, 1}}.mul(g.Tm)
		}
	}
	setMatrix := func(args []pdf.Value) (matrix, bool) {
		if len(args) != 6 {
			return ident, false
		}
		var m matrix
		for i := 0; i < 6; i++ {
			m[i/2][i%2] = num(args[i])
		}
		m[2][2] = 1
		return m, true
	}
	nextLine := func() {
		g.Tlm = matrix{{1, 0, 0}, {0, 1, 0}, {0, -g.Tl, 1}}.mul(g.Tlm)
		g.Tm = g.Tlm
	}

	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "cm":
			if m, ok := setMatrix(args); ok {
				g.CTM = m.mul(g.CTM)
			}
		case "q":
			if len(stack) < 256 {
				stack = append(stack, g)
			}
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "BT":
			g.Tm, g.Tlm = ident, ident
		case "T*":
			nextLine()
		case "Tc":
			if n == 1 {
				g.Tc = num(args[0])
			}
		case "Tw":
			if n == 1 {
				g.Tw = num(args[0])
			}
		case "Tz":
			if n == 1 {
				g.Th = num(args[0]) / 100
			}
		case "TL":
			if n == 1 {
				g.Tl = num(args[0])
			}
		case "Ts":
			if n == 1 {
				g.Trise = num(args[0])
			}
		case "TD", "Td":
			if n != 2 {
				return
			}
			if op == "TD" {
				g.Tl = -num(args[1])
			}
			g.Tlm = matrix{{1, 0, 0}, {0, 1, 0}, {num(args[0]), num(args[1]), 1}}.mul(g.Tlm)
			g.Tm = g.Tlm
		case "Tm":
			if m, ok := setMatrix(args); ok {
				g.Tm, g.Tlm = m, m
			}
		case "Tf":
			if n != 2 {
				return
			}
			name := args[0].Name()
			f, ok := fontsByName[name]
			if !ok {
				fonts := res.Key("Font")
				f = in.fonts.get(fonts.Key(name), keyOf(fonts))
				fontsByName[name] = f
			}
			g.Tf = f
			g.Tfs = num(args[1])
		case "\"":
			if n != 3 {
				return
			}
			g.Tw, g.Tc = num(args[0]), num(args[1])
			nextLine()
			show(args[2].RawString())
		case "'":
			if n != 1 {
				return
			}
			nextLine()
			show(args[0].RawString())
		case "Tj":
			if n == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if n != 1 {
				return
			}
			v := args[0]
			for i := 0; i < v.Len(); i++ {
				x := v.Index(i)
				if x.Kind() == pdf.String {
					show(x.RawString())
					continue
				}
				adj := -num(x) / 1000 * g.Tfs
				if g.Tf != nil && g.Tf.vertical {
					g.Tm = matrix{{1, 0, 0}, {0, 1, 0}, {0, adj, 1}}.mul(g.Tm)
				} else {
					g.Tm = matrix{{1, 0, 0}, {0, 1, 0}, {adj * g.Th, 0, 1}}.mul(g.Tm)
				}
			}
		case "Do":
			if n != 1 {
				return
			}
			xo := res.Key("XObject").Key(args[0].Name())
			if xo.Key("Subtype").Name() != "Form" {
				return
			}
			m := ident
			if mv := xo.Key("Matrix"); mv.Len() == 6 {
				vals := make([]pdf.Value, 6)
				for i := range vals {
					vals[i] = mv.Index(i)
				}
				m, _ = setMatrix(vals)
			}
			xres := xo.Key("Resources")
			if xres.IsNull() {
				xres = res
			}
			in.content(xo, xres, m.mul(g.CTM), depth+1)
		}
	})
}
