package paper

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ligatures expands typographic ligatures. NFKC would do it too, but it also
// folds full-width CJK punctuation and superscripts, which we want to keep.
var ligatures = map[rune]string{
	'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "ft", 'ﬆ': "st",
	'\u00a0': " ", '\u2002': " ", '\u2003': " ", '\u2009': " ", '\u200a': " ",
	'\u00ad': "", '\u200b': "", '\ufeff': "",
	// vertical presentation forms back to the characters they stand for
	'︐': "，", '︑': "、", '︒': "。", '︓': "：", '︔': "；", '︕': "！", '︖': "？", '︙': "…",
	'︱': "ー", '︲': "–", '︵': "（", '︶': "）", '︷': "｛", '︸': "｝", '︹': "〔", '︺': "〕",
	'︻': "【", '︼': "】", '︽': "《", '︾': "》", '︿': "〈", '﹀': "〉", '﹁': "「", '﹂': "」",
	'﹃': "『", '﹄': "』",
}

// spacingAccents maps the spacing accents TeX draws over a letter to the
// combining marks NFC composes with it.
var spacingAccents = map[rune]rune{
	'´': '\u0301', '`': '\u0300', '¨': '\u0308', 'ˆ': '\u0302', '^': '\u0302', '˜': '\u0303',
	'~': '\u0303', '¸': '\u0327', 'ˇ': '\u030C', '˘': '\u0306', '˙': '\u0307', '˚': '\u030A',
	'˝': '\u030B', '¯': '\u0304', '˛': '\u0328',
}

// combiningFor returns the combining mark for a lone accent glyph.
func combiningFor(s string) (rune, bool) {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || n != len(s) {
		return 0, false
	}
	if r != '^' && r != '`' && r != '~' && r < 0x80 {
		return 0, false // the ASCII letters and digits of most glyphs
	}
	if unicode.Is(unicode.Mn, r) {
		return r, true
	}
	m, ok := spacingAccents[r]
	return m, ok
}

// normalizeText expands ligatures, drops control characters and composes
// accents (NFC). 0x1F is how some TeX fonts without a ToUnicode map show
// the "ft" ligature; it only counts as such between letters.
func normalizeText(s string) string {
	if plainASCII(s) {
		return s // already what the steps below would make of it
	}
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if rep, ok := ligatures[r]; ok {
			b.WriteString(rep)
			continue
		}
		switch {
		case r == 0x1F && i > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i-1]):
			b.WriteString("ft")
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r), r == unicode.ReplacementChar, unicode.Is(unicode.Co, r):
		default:
			b.WriteRune(r)
		}
	}
	out := norm.NFC.String(b.String())
	return strings.Join(strings.Fields(out), " ")
}

// plainASCII reports whether s is printable ASCII with single spaces between words and none
// at the ends: no ligature, control character or accent to fix, NFC as it is.
func plainASCII(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || c == ' ' && s[i-1] == ' ' {
			return false
		}
	}
	return true
}
