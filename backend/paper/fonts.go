package paper

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// fontData is everything the interpreter needs from a font dictionary, resolved once for
// the document: widths, code length, the ToUnicode map and writing mode. The page workers
// share it; it is not changed once parsed.
type fontData struct {
	twoByte  bool
	vertical bool
	bold     bool
	ucs2     bool // predefined UCS-2 CMap without ToUnicode
	first    int
	widths   []float64
	cid      map[int]float64
	dw       float64
	scale    float64 // Type3 FontMatrix scale relative to 1/1000
	toUni    map[string]string
	cidUni   cidTable   // CID to Unicode for Identity-encoded CJK fonts
	hangs    bool       // glyphs drawn below their origin (fontHangs)
	codes    *codeTable // glyph names of a simple font without ToUnicode (fontenc.go)
	enc      pdf.TextEncoding
}

// fontInfo is one worker's font: the shared data and the codes this worker has decoded.
type fontInfo struct {
	*fontData
	cache map[string]string
}

// fontStore shares parsed fonts across pages and page workers: each font is parsed once
// per document (each worker parsing its own was a fifth of a two-worker extraction's
// allocations). A font that is an object of its own is known by its object number; one
// written inside its resources dictionary (holder, the object that holds that dictionary)
// by the dictionary as printed by ledongthuc/pdf, which keeps indirect references
// unresolved. Printing every font for every page, as before, cost the size of its
// dictionary (an inline /Widths array can be large) once per page.
type fontStore struct {
	mu     sync.Mutex
	byObj  map[objKey]*fontEntry
	byText map[string]*fontEntry
	spent  *budget // ToUnicode streams read count against the document's budget
}

// fontEntry is parsed once, by the first worker to need it; the others wait for it.
type fontEntry struct {
	once sync.Once
	data *fontData // nil when parsing it failed
}

func newFontStore(spent *budget) *fontStore {
	return &fontStore{byObj: map[objKey]*fontEntry{}, byText: map[string]*fontEntry{}, spent: spent}
}

func (s *fontStore) get(v pdf.Value, holder objKey) *fontData {
	s.mu.Lock()
	var e *fontEntry
	if k := keyOf(v); k != (objKey{}) && k != holder {
		if e = s.byObj[k]; e == nil {
			e = &fontEntry{}
			s.byObj[k] = e
		}
	} else {
		key := v.String()
		if e = s.byText[key]; e == nil {
			e = &fontEntry{}
			s.byText[key] = e
		}
	}
	s.mu.Unlock()
	e.once.Do(func() { e.data = parseFont(v, s.spent) })
	if e.data == nil {
		// Parsing it panicked on an earlier page: this page fails the same way.
		panic(errors.New("unreadable font"))
	}
	return e.data
}

// fontCache is one worker's view of the store, with its own decoded codes.
type fontCache struct {
	store *fontStore
	mine  map[*fontData]*fontInfo
}

func newFontCache(store *fontStore) *fontCache {
	return &fontCache{store: store, mine: map[*fontData]*fontInfo{}}
}

func (c *fontCache) get(v pdf.Value, holder objKey) *fontInfo {
	d := c.store.get(v, holder)
	f := c.mine[d]
	if f == nil {
		f = &fontInfo{fontData: d, cache: map[string]string{}}
		c.mine[d] = f
	}
	return f
}

func parseFont(v pdf.Value, spent *budget) *fontData {
	f := &fontData{dw: 1000, scale: 1}
	base := v.Key("BaseFont").Name()
	lb := strings.ToLower(base)
	f.bold = strings.Contains(lb, "bold") || strings.Contains(lb, "cmbx") ||
		strings.Contains(lb, "black") || strings.Contains(lb, "heavy") || strings.HasSuffix(lb, ".b") ||
		// URW's Times and Helvetica clones (NimbusRomNo9L-Medi, NimbusSanL-Medi) name their
		// bold "Medi": ACL's section headings are set in it.
		strings.HasSuffix(lb, "-medi") || strings.Contains(lb, "-mediital") || strings.Contains(lb, "medium")
	subtype := v.Key("Subtype").Name()
	// The encoding and the descriptor are read once: each Key of an indirect object parses it
	// from the file again (a font's /Differences, some 100 names, four times).
	enc, desc := v.Key("Encoding"), v.Key("FontDescriptor")
	encName := enc.Name()
	if subtype == "Type0" {
		f.twoByte = true
		f.vertical = strings.HasSuffix(encName, "-V")
		f.ucs2 = strings.Contains(encName, "UCS2") || strings.Contains(encName, "UTF16")
		d := v.Key("DescendantFonts").Index(0)
		if dw := d.Key("DW"); !dw.IsNull() {
			f.dw = num(dw)
		}
		f.cid = parseCIDWidths(d.Key("W"))
		if strings.HasPrefix(encName, "Identity") {
			si := d.Key("CIDSystemInfo")
			if reg, ord := si.Key("Registry").Text(), si.Key("Ordering").Text(); reg == "Adobe" && ord != "Identity" && ord != "" {
				f.cidUni = cidToUnicode(reg + "-" + ord)
			}
		}
	} else {
		f.first = int(v.Key("FirstChar").Int64())
		ws := v.Key("Widths")
		for i := 0; i < ws.Len() && i < 65536; i++ {
			f.widths = append(f.widths, num(ws.Index(i)))
		}
		if subtype == "Type3" {
			if fm := v.Key("FontMatrix"); fm.Len() == 6 {
				f.scale = num(fm.Index(0)) * 1000
			}
		}
	}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.toUni = parseToUnicode(tu, spent)
	}
	f.hangs = fontHangs(desc.Key("FontBBox"))
	if !f.twoByte && len(f.toUni) == 0 {
		f.codes = simpleCodes(v, enc, desc, spent)
	}
	// The library's encoder would run its own CMap parser over ToUnicode
	// (Encoding absent or Identity-H); ours is already parsed and that
	// parser can hang on a malformed stream, so it only gets the other cases.
	usesCMap := enc.IsNull() || encName == "Identity-H"
	if !f.twoByte && !(usesCMap && f.toUni != nil) {
		if !usesCMap || checkContent(v.Key("ToUnicode"), spent) == nil {
			pf := pdf.Font{V: v}
			f.enc = pf.EncoderOf(enc)
		}
	}
	return f
}

// maxCIDWidths bounds the widths a CID font's /W array sets, ranges expanded. A font has at
// most 65,536 CIDs, each given once by a real /W; but each range could set 65,536 of them
// again, and 10,000 ranges (a 100 KB file) took 10 s of CPU for one font, 100,000 past a
// minute. Twice the CIDs there are is what a font can need; widths past it are left out.
const maxCIDWidths = 2 << 16

func parseCIDWidths(w pdf.Value) map[int]float64 {
	m := map[int]float64{}
	left := maxCIDWidths
	for i := 0; i < w.Len() && left > 0; {
		c := int(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for j := 0; j < next.Len() && j < 65536 && left > 0; j++ {
				m[c+j] = num(next.Index(j))
				left--
			}
			i += 2
			continue
		}
		last := int(next.Int64())
		width := num(w.Index(i + 2))
		for c2 := c; c2 <= last && c2-c < 65536 && left > 0; c2++ {
			m[c2] = width
			left--
		}
		i += 3
	}
	return m
}

func (f *fontData) width(code []byte) float64 {
	if f.twoByte {
		c := 0
		for i := 0; i < len(code); i++ {
			c = c<<8 | int(code[i])
		}
		if w, ok := f.cid[c]; ok {
			return w
		}
		return f.dw
	}
	i := int(code[0]) - f.first
	if i < 0 || i >= len(f.widths) {
		if len(f.widths) == 0 {
			return 500 // standard-14 font without widths: a typical average
		}
		return 0
	}
	return f.widths[i] * f.scale
}

// decode returns the text of a character code; looking codes up by string(code) does not
// copy them, so only the first use of a code allocates.
func (f *fontInfo) decode(code []byte) string {
	if s, ok := f.cache[string(code)]; ok {
		return s
	}
	var s string
	if u, ok := f.toUni[string(code)]; ok {
		s = u
	} else if t, ok := f.codeText(code); ok {
		s = t
	} else if f.twoByte {
		switch {
		case f.ucs2:
			s = decodeUTF16(string(code))
		case f.cidUni != "" && len(code) == 2:
			if r := f.cidUni.at(int(code[0])<<8 | int(code[1])); r != 0 {
				s = string(r)
			}
		}
	} else if f.enc != nil {
		s = f.enc.Decode(string(code))
	} else {
		s = string(code)
	}
	f.cache[string(code)] = s
	return s
}

// codeText is a simple font's code by its glyph names (fontenc.go).
func (f *fontInfo) codeText(code []byte) (string, bool) {
	if len(code) != 1 || f.codes == nil {
		return "", false
	}
	return f.codes.lookup(code[0])
}

func decodeUTF16(b string) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	return string(utf16.Decode(u))
}

// maxCMapEntries bounds the codes a ToUnicode map's ranges expand to: a range spans up to
// 65,536 codes, and a 4 MB CMap of ranges would otherwise take billions of steps. The
// largest real fonts map some tens of thousands of codes.
const maxCMapEntries = 1 << 18

// maxCMapDst is the longest destination string a CMap maps a code to (512 bytes, Adobe
// Technical Note 5411); a longer one is left out. A range copies its destination for every
// code it spans: one of 1 MB over 65,536 codes (a 1 MB file) asked for 65 GB of text.
const maxCMapDst = 512

// parseToUnicode reads bfchar and bfrange entries of a ToUnicode CMap.
func parseToUnicode(v pdf.Value, spent *budget) map[string]string {
	rc := v.Reader()
	buf := cmapBuffers.Get().(*bytes.Buffer)
	defer func() {
		buf.Reset()
		cmapBuffers.Put(buf)
	}()
	_, err := buf.ReadFrom(&counter{r: io.LimitReader(rc, 4<<20), spent: spent})
	data := buf.Bytes()
	rc.Close()
	m := map[string]string{}
	if err != nil && len(data) == 0 {
		return m
	}
	steps := 0
	toks := cmapTokens(data)
	for i := 0; i < len(toks); i++ {
		switch toks[i].kw {
		case "beginbfchar":
			for i++; i+1 < len(toks) && toks[i].kw == ""; i += 2 {
				if len(toks[i+1].hex) <= maxCMapDst {
					m[toks[i].hex] = decodeUTF16(toks[i+1].hex)
				}
			}
			i--
		case "beginbfrange":
			for i++; i+2 < len(toks) && toks[i].kw == ""; {
				lo, hi := toks[i].hex, toks[i+1].hex
				i += 2
				if toks[i].kw == "[" {
					j := 0
					for i++; i < len(toks) && toks[i].kw == ""; i++ {
						if len(toks[i].hex) <= maxCMapDst {
							m[addCode(lo, j)] = decodeUTF16(toks[i].hex)
						}
						j++
					}
					i++ // "]"
					continue
				}
				dst := toks[i].hex
				i++
				if len(lo) != len(hi) || len(lo) == 0 || len(dst) > maxCMapDst {
					continue
				}
				prev := ""
				for j := 0; j < 65536 && steps < maxCMapEntries; j++ {
					steps++
					code := addCode(lo, j)
					// Past the last code of its width it wraps to the first: a one-byte range
					// to <FF> went round 256 times, spending the steps of the ranges after it.
					if code > hi || j > 0 && code <= prev {
						break
					}
					prev = code
					m[code] = decodeUTF16(addCode(dst, j))
				}
			}
			i--
		}
	}
	return m
}

// cmapBuffers hold a ToUnicode map while it is parsed (nothing is kept of it: tokens are
// copies): read whole into a new slice each, the maps of a paper's fonts were a tenth of
// what it allocated (icml2024: 0.2 of 5.9 MB, with the tokens' list).
var cmapBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// addCode adds n to a big-endian byte string.
func addCode(s string, n int) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0 && n > 0; i-- {
		sum := int(b[i]) + n
		b[i] = byte(sum)
		n = sum >> 8
	}
	return string(b)
}

type cmapTok struct {
	kw  string // keyword, "[" or "]"; empty for a hex string
	hex string // decoded bytes of a <hex> string
}

func cmapTokens(data []byte) []cmapTok {
	out := make([]cmapTok, 0, len(data)/8) // "<0041> <0041>" is two tokens in 14 bytes
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '<' && i+1 < len(data) && data[i+1] != '<':
			j := bytes.IndexByte(data[i:], '>')
			if j < 0 {
				return out
			}
			out = append(out, cmapTok{hex: unhex(data[i+1 : i+j])})
			i += j + 1
		case c == '[' || c == ']':
			out = append(out, cmapTok{kw: string(c)})
			i++
		case c == '%':
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(data) && (data[j] >= 'a' && data[j] <= 'z' || data[j] >= 'A' && data[j] <= 'Z') {
				j++
			}
			out = append(out, cmapTok{kw: string(data[i:j])})
			i = j
		default:
			i++
		}
	}
	return out
}

func unhex(h []byte) string {
	var b []byte
	var cur byte
	n := 0
	for _, c := range h {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		cur = cur<<4 | v
		n++
		if n == 2 {
			b = append(b, cur)
			cur, n = 0, 0
		}
	}
	if n == 1 {
		b = append(b, cur<<4)
	}
	return string(b)
}
