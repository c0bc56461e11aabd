package paper

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/ledongthuc/pdf"
)

// A simple font (one byte a code) without a ToUnicode map says what its codes are through
// glyph names: an /Encoding with /Differences over a base encoding, and where the PDF names
// no base, the encoding built into the font program itself. TeX's Computer Modern fonts are
// the common case: CMSY, CMMI and CMEX are embedded with their built-in encodings only, so
// code 0x00 of CMSY10 is "minus", 0x3B of CMMI10 is "comma" and 0x78 of CMSY10 is "section".
// The library's decoder knows named base encodings and /Differences but not built-in
// encodings: it read those codes as bytes (";" for a comma, "x" for §, "!" for →).

// maxFontHead is how much of an embedded Type 1 program is read for its built-in
// /Encoding: the cleartext part holds it, within the first few kilobytes (Computer Modern
// fonts spend some 3 KB on it). The rest, the encrypted glyph programs, is never inflated.
const maxFontHead = 64 << 10

// codeTable is the text of each code of a simple font, where known; a code known to have no
// text (a piece of a large delimiter other than its top, TeX's "suppress") is known and empty.
// The codes /Differences names are resolved when the font is parsed; the font program's
// built-in encoding is read only when a code outside them is shown (TeX's text fonts name
// every code they use in /Differences, and reading each program cost a tenth of an
// extraction), then TeX's encoding by the font's name fills what is still unknown.
type codeTable struct {
	text  [256]string
	known [256]bool

	once    sync.Once
	program pdf.Value // FontFile, or a null value
	spent   *budget
	tex     *[128]rune
	rest    [256]string // from the program and tex, after load
	restOK  [256]bool
}

// lookup returns the text of a code and whether the font says what it is.
func (t *codeTable) lookup(c byte) (string, bool) {
	if t.known[c] {
		return t.text[c], true
	}
	t.once.Do(t.load)
	return t.rest[c], t.restOK[c]
}

func (t *codeTable) load() {
	var names [256]string
	if t.program.Kind() == pdf.Stream {
		type1Encoding(t.program, t.spent, &names)
	}
	for c := range t.rest {
		if names[c] != "" {
			t.rest[c], t.restOK[c] = glyphNameText(names[c])
		}
		if !t.restOK[c] && t.tex != nil && c < len(t.tex) && t.tex[c] != 0 {
			t.rest[c], t.restOK[c] = string(t.tex[c]), true
		}
	}
}

// simpleCodes returns the codes of a simple font whose encoding names no base encoding, or
// nil when the PDF's own encoding suffices. A code the font does not name is left to the
// library's decoder. enc and desc are the font's /Encoding and /FontDescriptor.
func simpleCodes(v, enc, desc pdf.Value, spent *budget) *codeTable {
	if enc.Kind() == pdf.Name || enc.Kind() == pdf.Dict && !enc.Key("BaseEncoding").IsNull() {
		return nil // a named base encoding: the library's tables and /Differences do it
	}
	out := &codeTable{spent: spent, tex: texEncodingFor(v.Key("BaseFont").Name())}
	out.program = desc.Key("FontFile")
	found := out.program.Kind() == pdf.Stream || out.tex != nil
	if diff := enc.Key("Differences"); diff.Kind() == pdf.Array {
		code := -1
		for i := 0; i < diff.Len() && i < 4096; i++ {
			x := diff.Index(i)
			switch x.Kind() {
			case pdf.Integer:
				code = int(x.Int64())
			case pdf.Name:
				if code >= 0 && code < 256 {
					out.text[code], out.known[code] = glyphNameText(x.Name())
					found = found || out.known[code]
				}
				code++
			}
		}
	}
	if !found {
		return nil
	}
	return out
}

// type1Encoding reads the built-in encoding of a Type 1 font program: the cleartext part's
// "/Encoding 256 array … dup CODE /NAME put … readonly def". "/Encoding StandardEncoding
// def" names nothing to add. It reports whether it found a name.
func type1Encoding(ff pdf.Value, spent *budget, names *[256]string) bool {
	n := int64(maxFontHead)
	if l := ff.Key("Length1").Int64(); l > 0 && l < n {
		n = l
	}
	rc := ff.Reader()
	head, _ := io.ReadAll(&counter{r: io.LimitReader(rc, n), spent: spent})
	rc.Close()
	i := bytes.Index(head, []byte("/Encoding"))
	if i < 0 {
		return false
	}
	head = head[i+len("/Encoding"):]
	if end := bytes.Index(head, []byte("readonly def")); end >= 0 {
		head = head[:end]
	} else if end := bytes.Index(head, []byte("def")); end >= 0 && end < 64 {
		return false // "/Encoding StandardEncoding def"
	}
	found := false
	for {
		i := bytes.Index(head, []byte("dup "))
		if i < 0 {
			return found
		}
		head = head[i+4:]
		f := bytes.Fields(head[:min(len(head), 80)])
		if len(f) < 3 || !bytes.Equal(f[2], []byte("put")) || len(f[1]) < 2 || f[1][0] != '/' {
			continue
		}
		code, err := strconv.Atoi(string(f[0]))
		if err != nil || code < 0 || code > 255 {
			continue
		}
		names[code] = string(f[1][1:])
		found = true
	}
}

// glyphNameText maps a glyph name to its text: TeX's own names first (Computer Modern names
// many symbols outside the Adobe Glyph List, and the list maps some of its names, such as
// the pieces of large delimiters, to private-use characters), then the Adobe Glyph List,
// then the uniXXXX and uXXXX[XX] forms, then sized variants of TeX's extension font
// ("parenleftbig", "summationdisplay"), variants after "." and ligatures joined by "_". A
// delimiter built of pieces gives its character once, from its top piece. ok is false for a
// name it does not know.
func glyphNameText(name string) (text string, ok bool) {
	return glyphNameTextDepth(name, 0)
}

func glyphNameTextDepth(name string, depth int) (string, bool) {
	if name == "" || depth > 4 {
		return "", false
	}
	if r, ok := texGlyphNames[name]; ok {
		if r == 0 {
			return "", true
		}
		return string(r), true
	}
	if r := pdf.GlyphRune(name); r != 0 && (r < 0xE000 || r > 0xF8FF) {
		return string(r), true
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var b strings.Builder
		for i := 3; i+4 <= len(name); i += 4 {
			r, err := strconv.ParseUint(name[i:i+4], 16, 32)
			if err != nil {
				return "", false
			}
			b.WriteRune(rune(r))
		}
		return b.String(), true
	}
	if len(name) >= 5 && len(name) <= 7 && name[0] == 'u' {
		if r, err := strconv.ParseUint(name[1:], 16, 32); err == nil && r <= 0x10FFFF {
			return string(rune(r)), true
		}
	}
	for _, suf := range texSizeSuffixes {
		if base, cut := strings.CutSuffix(name, suf.suffix); cut && base != "" {
			if !suf.keep {
				if _, ok := glyphNameTextDepth(base, depth+1); ok {
					return "", true
				}
				return "", false
			}
			return glyphNameTextDepth(base, depth+1)
		}
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		return glyphNameTextDepth(name[:i], depth+1)
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for _, part := range strings.Split(name, "_") {
			t, ok := glyphNameTextDepth(part, depth+1)
			if !ok {
				return "", false
			}
			b.WriteString(t)
		}
		return b.String(), true
	}
	if len(name) == 1 {
		return name, true
	}
	return "", false
}

// fontHangs reports whether a font draws its glyphs down from their origin rather than up
// from a baseline: the middle of its bounding box lies more than a quarter of an em below
// the origin. TeX's extension font (cmex10, FontBBox [-24 -2960 1454 772]) is the case:
// its large delimiters and operators hang from the origin, which TeX sets above the line so
// that the glyph is centred on the math axis; read by their origin they made a line of
// their own above the equation ("{( ( ) ( ) ) }" above "L = max d PQ, P+ …").
func fontHangs(bbox pdf.Value) bool {
	if bbox.Len() != 4 {
		return false
	}
	return bboxHangs(num(bbox.Index(1)), num(bbox.Index(3)))
}

// bboxHangs takes the bottom and top of a font's bounding box, in glyph units.
func bboxHangs(lo, hi float64) bool { return hi > lo && (lo+hi)/2 < -250 }
