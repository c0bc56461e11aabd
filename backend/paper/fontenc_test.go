package paper

import (
	"strings"
	"testing"
)

// TeX's standard encodings, for TeX fonts whose program does not name its glyphs.
func TestTeXEncodings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		font string
		code byte
		want rune
	}{
		{"VLXDAJ+CMSY10", 0x00, '−'}, {"CMSY10", 0x78, '§'}, {"CMSY9", 0x79, '†'},
		{"CMSY10", 0x21, '→'}, {"CMSY10", 0x14, '≤'}, {"CMSY10", 0x32, '∈'}, {"CMSY10", 0x31, '∞'},
		{"CMMI10", 0x3B, ','}, {"CMMI12", 0x0B, 'α'}, {"CMMI8", 0x40, '∂'}, {"CMMI10", 0x3D, '/'},
		{"CMEX10", 0x50, '∑'}, {"CMEX10", 0x08, '{'}, {"CMR10", 0x7B, '–'}, {"CMBX12", 0x0C, 'ﬁ'},
	} {
		enc := texEncodingFor(c.font)
		if enc == nil || enc[c.code] != c.want {
			t.Errorf("%s code %#x: want %q", c.font, c.code, c.want)
		}
	}
	for _, f := range []string{"NimbusRomNo9L-Regu", "CMUSerif-Roman", "cmsy", "MSBM10"} {
		if texEncodingFor(f) != nil {
			t.Errorf("%s has no TeX encoding", f)
		}
	}
}

// Glyph names of Computer Modern and the Adobe Glyph List, as embedded fonts give them.
func TestGlyphNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"minus": "−", "section": "§", "dagger": "†", "arrowright": "→", "comma": ",",
		"epsilon1": "ε", "alpha": "α", "lessequal": "≤", "element": "∈", "negationslash": "\u0338",
		"angbracketleft": "⟨", "parenleftbig": "(", "braceleftBigg": "{", "summationdisplay": "∑",
		"bracelefttp": "{", "braceleftbt": "", "braceex": "", "zerooldstyle": "0", "dotlessj": "ȷ",
		"uni2212": "−", "u1D6FC": "𝛼", "f_i": "fi", "a.sc": "a", "suppress": "",
	} {
		got, ok := glyphNameText(name)
		if !ok || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := glyphNameText("glyph1234"); ok {
		t.Error("an unknown name is not known")
	}
}

func TestFontHangs(t *testing.T) {
	t.Parallel()
	if !bboxHangs(-2960, 772) {
		t.Error("cmex10 hangs below its origin")
	}
	if bboxHangs(-960, 775) || bboxHangs(-250, 750) {
		t.Error("cmsy10 and a text font sit on their baseline")
	}
}

// Symbols of TeX's math fonts, which carry no ToUnicode map: the built-in encodings of
// CMSY, CMMI and CMEX give the minus signs, commas, braces, arrows and § that issue 30 found
// read as bytes ("L = max d PQ; P+ d PQ; P + m ; 0", "x6", "cit!e"), and the delimiters
// that hang from their origin are read on their equation's line, in order.
func TestSymbolsFromBuiltinEncodings(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "specter_acl2020", Options{Pages: PageRange{{2, 3}}})
	text := doc.Text()
	for _, want := range []string{
		"Triplet loss =max {( d (PQ, P+) − d (PQ, P−) + m), 0}", // the same, set small in Figure 1
		"L = max{(d(PQ, P+)− d(PQ, P−)+ m), 0} (2)",
		"(see §6)", "P¹ −c−it→e P²",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q", want)
		}
	}
	for _, bad := range []string{"x6", "cit!e", "PQ; P", "{( ( ) ( ) ) }\n\nL = max"} {
		if strings.Contains(text, bad) {
			t.Errorf("%q read from a math font's codes as bytes", bad)
		}
	}
}

// Footnote marks are superscripts attached to the text they follow. Specter's abstract (10
// pt) sits beside 10.9 pt body text whose baselines are within a row's tolerance, so a row
// holds both columns; measured against the row's baseline, the "1" after "benchmark." went
// into the line above ("a vari1ety").
func TestFootnoteMarksStayWithTheirWord(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "specter_acl2020", Options{Pages: PageRange{{1, 2}}})
	text := doc.Text()
	for _, want := range []string{"SPECTER outperforms a variety of competitive", "baselines on the benchmark.¹", "Our system, SPECTER,² incorporates"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(text, "vari1ety") {
		t.Error("a footnote mark inside a word")
	}
}
