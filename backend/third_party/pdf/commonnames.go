package pdf

import (
	"strings"
	"sync"
)

// Patched for Tofu (third_party/README.md): readName made a string, and a token holding
// it, for every name it read; the names of a paper's fonts and pages are mostly the same
// few hundred (dictionary keys, the glyph names of ASCII and TeX's ligatures), read again
// for every object that holds them: a third of an 8-page paper's allocations. Those names
// are made once, as tokens, on first use; the table is only read after.
var commonNames = sync.OnceValue(func() map[string]token {
	var all []string
	for _, list := range []string{commonKeys, commonGlyphs} {
		all = append(all, strings.Fields(list)...)
	}
	for c := 'A'; c <= 'Z'; c++ {
		all = append(all, string(c), string(c+'a'-'A'))
	}
	m := make(map[string]token, len(all))
	for _, s := range all {
		m[s] = name(s)
	}
	return m
})

// commonKeys are the keys and values of the dictionaries of pages, fonts and streams.
const commonKeys = `Type Subtype Font BaseFont FirstChar LastChar Widths FontDescriptor Encoding
Differences BaseEncoding ToUnicode FontName FontFamily FontStretch FontWeight Flags FontBBox
ItalicAngle Ascent Descent Leading CapHeight XHeight StemV StemH AvgWidth MaxWidth MissingWidth
CharSet FontFile FontFile2 FontFile3 Length Length1 Length2 Length3 Filter FlateDecode
DecodeParms Predictor Columns Resources ProcSet PDF Text ImageB ImageC ImageI XObject
ExtGState Pattern Shading ColorSpace Properties Contents MediaBox CropBox BleedBox TrimBox
ArtBox Parent Kids Count Page Pages Annots Rotate Type1 Type3 TrueType Type0 MMType1
CIDFontType0 CIDFontType2 DescendantFonts CIDSystemInfo Registry Ordering Supplement DW W
CIDToGIDMap Identity Identity-H Identity-V WinAnsiEncoding MacRomanEncoding StandardEncoding
Form BBox Matrix FormType Image Width Height BitsPerComponent DeviceRGB DeviceGray DeviceCMYK
DCTDecode Group Transparency CS First Extends ObjStm XRef Size Index Prev Root Info ID
Catalog Link Rect Border URI Dest Annot CharProcs FontMatrix Metadata XML StructParents
Tabs Q GS0 GS1 F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 F13 F14 F15 F16 F17 F18 F19 F20
Im1 Im2 Fm1 Fm2 SMask Decode Interpolate Lang MarkInfo Outlines PageLabels Names Dests`

// commonGlyphs are the glyph names of ASCII but its letters, and the ligatures,
// punctuation and accents of TeX's text fonts.
const commonGlyphs = `space exclam quotedbl numbersign dollar percent ampersand quoteright
quotesingle parenleft parenright asterisk plus comma hyphen period slash zero one two three
four five six seven eight nine colon semicolon less equal greater question at bracketleft
backslash bracketright asciicircum underscore quoteleft grave braceleft bar braceright
asciitilde fi fl ff ffi ffl dotlessi dotlessj quotedblleft quotedblright quotedblbase
quotesinglbase endash emdash bullet dagger daggerdbl section paragraph circumflex tilde
dieresis acute cedilla ring caron breve macron dotaccent hungarumlaut ogonek minus multiply
divide periodcentered ellipsis germandbls ae oe oslash AE OE Oslash lslash Lslash exclamdown
questiondown guillemotleft guillemotright copyright registered trademark degree cent
sterling yen .notdef`
