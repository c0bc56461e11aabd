package paper

import (
	"fmt"
	"math"
	"slices"

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
	Hang     bool // drawn down from its origin (TeX's extension font): see attachHanging
}

// matrix is an affine transform [a b 0; c d 0; e f 1] in PDF's row-vector convention.
type matrix struct{ a, b, c, d, e, f float64 }

var ident = matrix{a: 1, d: 1}

// mul returns x × y: x applied first, then y.
func (x matrix) mul(y matrix) matrix {
	return matrix{
		a: x.a*y.a + x.b*y.c,
		b: x.a*y.b + x.b*y.d,
		c: x.c*y.a + x.d*y.c,
		d: x.c*y.b + x.d*y.d,
		e: x.e*y.a + x.f*y.c + y.e,
		f: x.e*y.b + x.f*y.d + y.f,
	}
}

// translate returns the translation by (tx, ty) followed by m: what the text operators
// do to the text matrix, without a full product.
func (m matrix) translate(tx, ty float64) matrix {
	m.e += tx*m.a + ty*m.c
	m.f += tx*m.b + ty*m.d
	return m
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
	lexers []*lexer // one per form depth, reused for every stream the worker reads
	glyphs []glyph
	spent  *budget // content bytes read, shared by the document's pages
	chars  *budget // glyphs kept, shared by the document's pages
}

// run interprets a page with the resources it inherits. A limit reached panics with the
// error, which readPage recovers.
func (in *interpreter) run(page pageRef) {
	contents := page.v.Key("Contents")
	if cap(in.glyphs) == 0 {
		// A worker's first page makes the room its pages will most likely need: as the
		// glyphs came, from nothing, the buffer was allocated some three times over on its
		// way to a page's 3,000 to 5,000 characters, and the layout's scratch buffers
		// (scratch.go) grew with it page after page.
		n := expectedGlyphs(contents)
		in.glyphs = make([]glyph, 0, max(n, min(2*n, pageGlyphs)))
	}
	in.content(contents, page.resources, ident, 0)
}

// pageGlyphs is the room a page worker starts with at least, when its first page's content
// could hold half of it: a page of a paper in two columns has 3,000 to 5,000 characters
// (the shared papers); a document of small pages starts with twice its first page's room.
const pageGlyphs = 4096

// maxExpectedGlyphs bounds the room made for a page's glyphs before they are read: the
// lengths it goes by are claims of the file.
const maxExpectedGlyphs = 16 << 10

// expectedGlyphs is the room to make for the glyphs of a page whose content is strm (a
// stream, or an array of them): its compressed length. The papers of the shared set draw
// 0.3 to 1.0 glyphs a byte of it; a page that draws more, or draws them in forms, grows
// the buffer as it goes (show).
func expectedGlyphs(strm pdf.Value) int {
	n := int64(0)
	if strm.Kind() == pdf.Array {
		for i := 0; i < strm.Len() && i < 16; i++ {
			n += max(0, strm.Index(i).Key("Length").Int64())
		}
	} else {
		n = strm.Key("Length").Int64()
	}
	return int(min(max(n, 0), maxExpectedGlyphs))
}

func num(v pdf.Value) float64 {
	if v.Kind() == pdf.Integer {
		return float64(v.Int64())
	}
	return v.Float64()
}

// content interprets one content stream (or an array of them, read as one). A stream that
// breaks a bound of the lexer makes the page fail with none of its glyphs, as when it was
// checked before being read.
func (in *interpreter) content(strm, res pdf.Value, ctm matrix, depth int) {
	if strm.IsNull() || depth > maxFormDepth {
		return
	}
	rd, done := openContent(strm)
	defer done()
	c := &counter{r: rd, spent: in.spent}
	for len(in.lexers) <= depth {
		in.lexers = append(in.lexers, newLexer())
	}
	lex := in.lexers[depth] // a form's stream is read while its page's is still open
	lex.reset(c)
	before := len(in.glyphs)
	st := state{in: in, res: res, g: gstate{Th: 1, CTM: ctm, Tm: ident, Tlm: ident}, lex: lex, depth: depth}
	err := lex.run(st.do)
	if c.err != nil {
		err = c.err
	}
	if err != nil {
		if in.chars != nil {
			in.chars.left.Add(int64(len(in.glyphs) - before))
		}
		in.glyphs = in.glyphs[:before]
		panic(err)
	}
}

// state is the graphics state of one content stream being read.
type state struct {
	in    *interpreter
	res   pdf.Value
	g     gstate
	stack []gstate
	fonts map[string]*fontInfo // by resource name
	forms map[string]*form     // by resource name; nil for an XObject that is not a form
	lex   *lexer
	depth int
}

// form is a form XObject as a content stream uses it: looked up once per stream, not at
// every Do (each lookup parsed its objects again from the file).
type form struct {
	strm, res pdf.Value
	m         matrix
}

// form looks up the XObject name in the stream's resources.
func (st *state) form(name string) *form {
	if f, ok := st.forms[name]; ok {
		return f
	}
	var f *form
	xo := st.res.Key("XObject").Key(name)
	if xo.Key("Subtype").Name() == "Form" {
		f = &form{strm: xo, res: xo.Key("Resources"), m: ident}
		if mv := xo.Key("Matrix"); mv.Len() == 6 {
			f.m = matrix{a: num(mv.Index(0)), b: num(mv.Index(1)), c: num(mv.Index(2)), d: num(mv.Index(3)), e: num(mv.Index(4)), f: num(mv.Index(5))}
		}
		if f.res.IsNull() {
			f.res = st.res
		}
	}
	if st.forms == nil {
		st.forms = map[string]*form{}
	}
	st.forms[name] = f
	return f
}

func (st *state) str(o operand) []byte {
	if o.kind != opString {
		return nil
	}
	return st.lex.bytes[o.lo:o.hi]
}

func (st *state) name(o operand) string {
	if o.kind != opName {
		return ""
	}
	return string(st.lex.bytes[o.lo:o.hi])
}

func (st *state) show(raw []byte) {
	g, in := &st.g, st.in
	f := g.Tf
	if f == nil {
		return
	}
	step := 1
	if f.twoByte {
		step = 2
	}
	for i := 0; i < len(raw); i += step {
		code := raw[i:min(i+step, len(raw))]
		w0 := f.width(code)
		trm := matrix{a: g.Tfs * g.Th, d: g.Tfs, f: g.Trise}.mul(g.Tm).mul(g.CTM)
		size := math.Hypot(trm.c, trm.d)
		a, b := trm.a, trm.b
		upright := math.Abs(b) <= 0.05*math.Abs(a) && a > 0
		if upright || f.vertical {
			if s := f.decode(code); s != "" {
				gl := glyph{S: s, X: trm.e, Y: trm.f, Size: size, Vertical: f.vertical, Bold: f.bold, Hang: f.hangs}
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
					if len(in.glyphs) == cap(in.glyphs) {
						// Twice the room: append grows a large slice by a quarter, which
						// allocated some five times a page's glyphs on the way to it.
						in.glyphs = slices.Grow(in.glyphs, max(len(in.glyphs), 1024))
					}
					in.glyphs = append(in.glyphs, gl)
				}
			}
		}
		space := len(code) == 1 && code[0] == ' '
		if f.vertical {
			ty := -(w0/1000*g.Tfs + g.Tc)
			if space {
				ty -= g.Tw
			}
			g.Tm = g.Tm.translate(0, ty)
			continue
		}
		tx := w0/1000*g.Tfs + g.Tc
		if space {
			tx += g.Tw
		}
		tx *= g.Th
		g.Tm = g.Tm.translate(tx, 0)
	}
}

// matrixOf reads the six numbers of a cm, Tm or /Matrix operand.
func matrixOf(args []operand) (matrix, bool) {
	if len(args) != 6 {
		return ident, false
	}
	return matrix{a: args[0].num, b: args[1].num, c: args[2].num, d: args[3].num, e: args[4].num, f: args[5].num}, true
}

func (st *state) nextLine() {
	g := &st.g
	g.Tlm = g.Tlm.translate(0, -g.Tl)
	g.Tm = g.Tlm
}

// do runs one operator. Operands of the wrong kind read as zero or empty, as they did
// through pdf.Value.
func (st *state) do(op []byte, args []operand) {
	g := &st.g
	n := len(args)
	switch string(op) {
	case "cm":
		if m, ok := matrixOf(args); ok {
			g.CTM = m.mul(g.CTM)
		}
	case "q":
		if len(st.stack) < 256 {
			st.stack = append(st.stack, *g)
		}
	case "Q":
		if len(st.stack) > 0 {
			*g = st.stack[len(st.stack)-1]
			st.stack = st.stack[:len(st.stack)-1]
		}
	case "BT":
		g.Tm, g.Tlm = ident, ident
	case "T*":
		st.nextLine()
	case "Tc":
		if n == 1 {
			g.Tc = args[0].num
		}
	case "Tw":
		if n == 1 {
			g.Tw = args[0].num
		}
	case "Tz":
		if n == 1 {
			g.Th = args[0].num / 100
		}
	case "TL":
		if n == 1 {
			g.Tl = args[0].num
		}
	case "Ts":
		if n == 1 {
			g.Trise = args[0].num
		}
	case "TD", "Td":
		if n != 2 {
			return
		}
		if op[1] == 'D' {
			g.Tl = -args[1].num
		}
		g.Tlm = g.Tlm.translate(args[0].num, args[1].num)
		g.Tm = g.Tlm
	case "Tm":
		if m, ok := matrixOf(args); ok {
			g.Tm, g.Tlm = m, m
		}
	case "Tf":
		if n != 2 {
			return
		}
		name := st.name(args[0])
		f, ok := st.fonts[name]
		if !ok {
			fonts := st.res.Key("Font")
			f = st.in.fonts.get(fonts.Key(name), keyOf(fonts))
			if st.fonts == nil {
				st.fonts = map[string]*fontInfo{}
			}
			st.fonts[name] = f
		}
		g.Tf = f
		g.Tfs = args[1].num
	case "\"":
		if n != 3 {
			return
		}
		g.Tw, g.Tc = args[0].num, args[1].num
		st.nextLine()
		st.show(st.str(args[2]))
	case "'":
		if n != 1 {
			return
		}
		st.nextLine()
		st.show(st.str(args[0]))
	case "Tj":
		if n == 1 {
			st.show(st.str(args[0]))
		}
	case "TJ":
		if n != 1 || args[0].kind != opArray {
			return
		}
		for _, x := range st.lex.elems[args[0].lo:args[0].hi] {
			if x.kind == opString {
				st.show(st.str(x))
				continue
			}
			adj := -x.num / 1000 * g.Tfs
			if g.Tf != nil && g.Tf.vertical {
				g.Tm = g.Tm.translate(0, adj)
			} else {
				g.Tm = g.Tm.translate(adj*g.Th, 0)
			}
		}
	case "Do":
		if n != 1 {
			return
		}
		if f := st.form(st.name(args[0])); f != nil {
			st.in.content(f.strm, f.res, f.m.mul(g.CTM), st.depth+1)
		}
	}
}
