package paper

import "strings"

// TeX's standard font encodings, written by hand from the layouts Knuth published for the
// Computer Modern fonts (The TeXbook, Appendix F; the font tables of cmr10, cmmi10, cmsy10
// and cmex10) and from LaTeX's encoding names for them (LaTeX2e font selection guide:
// OT1 text, OML math italic, OMS math symbols, OMX math extension). They are the fallback
// for a TeX font whose program says nothing of its encoding (not embedded, or a Type 3
// bitmap font that dvips named after it); an embedded font's own glyph names come first.

// texEncodingFor returns the encoding of a Computer Modern font by its PostScript name
// (a subset prefix "ABCDEF+" ignored), or nil.
func texEncodingFor(base string) *[128]rune {
	if i := strings.IndexByte(base, '+'); i == 6 {
		base = base[i+1:]
	}
	b := strings.ToLower(base)
	// The name is a family and a design size: "cmsy10", "cmmib7", "cmbx12".
	fam := strings.TrimRight(b, "0123456789")
	if fam == b || len(fam) < 3 {
		return nil
	}
	switch fam {
	case "cmsy", "cmbsy":
		return &encOMS
	case "cmmi", "cmmib":
		return &encOML
	case "cmex":
		return &encOMX
	case "cmr", "cmbx", "cmsl", "cmti", "cmbxsl", "cmbxti", "cmss", "cmssbx", "cmssi", "cmb", "cmfib", "cmdunh", "cmu", "cmvtt":
		return &encOT1
	}
	return nil
}

// texSizeSuffixes are the endings of glyph names in TeX's extension font and in the math
// fonts made after it: a sized or display variant is its base character; of the pieces a
// large delimiter is built of, the top gives the character and the others nothing.
var texSizeSuffixes = []struct {
	suffix string
	keep   bool
}{
	{"bigg", true}, {"Bigg", true}, {"big", true}, {"Big", true},
	{"display", true}, {"text", true}, {"wider", true}, {"widest", true}, {"wide", true},
	{"tp", true}, {"bt", false}, {"ex", false}, {"mid", false},
}

// texGlyphNames are the glyph names of the Computer Modern fonts (and the AMS and other
// fonts that reuse them) that the Adobe Glyph List lacks, maps to a private-use character,
// or maps to a different shape than TeX draws. 0 is a glyph with no text of its own.
var texGlyphNames = map[string]rune{
	// cmsy (OMS)
	"asteriskmath": '∗', "diamondmath": '⋄', "minusplus": '∓', "circleminus": '⊖',
	"circledivide": '⊘', "circledot": '⊙', "circlecopyrt": '◯', "openbullet": '◦',
	"equivasymptotic": '≍', "precedesequal": '⪯', "followsequal": '⪰', "lessmuch": '≪',
	"greatermuch": '≫', "precedes": '≺', "follows": '≻', "arrownortheast": '↗',
	"arrowsoutheast": '↘', "similarequal": '≃', "arrowdblboth": '⇔', "arrownorthwest": '↖',
	"arrowsouthwest": '↙', "negationslash": '\u0338', "mapsto": '↦', "latticetop": '⊤',
	"unionmulti": '⊎', "turnstileleft": '⊢', "turnstileright": '⊣', "floorleft": '⌊',
	"floorright": '⌋', "ceilingleft": '⌈', "ceilingright": '⌉', "angbracketleft": '⟨',
	"angbracketright": '⟩', "bardbl": '‖', "arrowbothv": '↕', "arrowdblbothv": '⇕',
	"wreathproduct": '≀', "coproduct": '⨿', "nabla": '∇', "unionsq": '⊔',
	"intersectionsq": '⊓', "subsetsqequal": '⊑', "supersetsqequal": '⊒', "triangleinv": '▽',
	"owner": '∋', "mapstochar": 0, "contintegral": '∮',
	// cmmi (OML)
	"epsilon1": 'ε', "theta1": 'ϑ', "pi1": 'ϖ', "rho1": 'ϱ', "sigma1": 'ς',
	"arrowlefttophalf": '↼', "arrowleftbothalf": '↽', "arrowrighttophalf": '⇀',
	"arrowrightbothalf": '⇁', "arrowhookleft": 0, "arrowhookright": 0, "triangleright": '▷',
	"triangleleft": '◁', "star": '⋆', "flat": '♭', "natural": '♮', "sharp": '♯',
	"slurbelow": '⌣', "slurabove": '⌢', "lscript": 'ℓ', "dotlessj": 'ȷ', "weierstrass": '℘',
	"vector": '\u20d7', "tie": '⁀',
	"zerooldstyle": '0', "oneoldstyle": '1', "twooldstyle": '2', "threeoldstyle": '3',
	"fouroldstyle": '4', "fiveoldstyle": '5', "sixoldstyle": '6', "sevenoldstyle": '7',
	"eightoldstyle": '8', "nineoldstyle": '9',
	// cmex (OMX): what is left after texSizeSuffixes
	"braceex": 0, "vextendsingle": 0, "vextenddouble": 0, "arrowvertex": 0, "arrowvertexdbl": 0,
	"bracehtipdownleft": 0, "bracehtipdownright": 0, "bracehtipupleft": 0, "bracehtipupright": 0,
	"radicalvertex": 0, "radicalvertical": 0, "hat": '^', "optional": 0,
	// cmr (OT1)
	"suppress": 0, "dotaccent": '˙',
}

// encOT1 is TeX's text encoding (cmr10 and the roman, bold, slanted and sans fonts).
var encOT1 = [128]rune{
	'Γ', 'Δ', 'Θ', 'Λ', 'Ξ', 'Π', 'Σ', 'Υ', 'Φ', 'Ψ', 'Ω', 'ﬀ', 'ﬁ', 'ﬂ', 'ﬃ', 'ﬄ',
	'ı', 'ȷ', '`', '´', 'ˇ', '˘', '¯', '˚', '¸', 'ß', 'æ', 'œ', 'ø', 'Æ', 'Œ', 'Ø',
	0, '!', '”', '#', '$', '%', '&', '’', '(', ')', '*', '+', ',', '-', '.', '/',
	'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '¡', '=', '¿', '?',
	'@', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
	'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', '[', '“', ']', 'ˆ', '˙',
	'‘', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', '–', '—', '˝', '˜', '¨',
}

// encOML is TeX's math italic encoding (cmmi10).
var encOML = [128]rune{
	'Γ', 'Δ', 'Θ', 'Λ', 'Ξ', 'Π', 'Σ', 'Υ', 'Φ', 'Ψ', 'Ω', 'α', 'β', 'γ', 'δ', 'ϵ',
	'ζ', 'η', 'θ', 'ι', 'κ', 'λ', 'μ', 'ν', 'ξ', 'π', 'ρ', 'σ', 'τ', 'υ', 'ϕ', 'χ',
	'ψ', 'ω', 'ε', 'ϑ', 'ϖ', 'ϱ', 'ς', 'φ', '↼', '↽', '⇀', '⇁', 0, 0, '▷', '◁',
	'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.', ',', '<', '/', '>', '⋆',
	'∂', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
	'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', '♭', '♮', '♯', '⌣', '⌢',
	'ℓ', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'ı', 'ȷ', '℘', '\u20d7', '⁀',
}

// encOMS is TeX's math symbol encoding (cmsy10); its capitals are calligraphic.
var encOMS = [128]rune{
	'−', '·', '×', '∗', '÷', '⋄', '±', '∓', '⊕', '⊖', '⊗', '⊘', '⊙', '◯', '∘', '•',
	'≍', '≡', '⊆', '⊇', '≤', '≥', '⪯', '⪰', '∼', '≈', '⊂', '⊃', '≪', '≫', '≺', '≻',
	'←', '→', '↑', '↓', '↔', '↗', '↘', '≃', '⇐', '⇒', '⇑', '⇓', '⇔', '↖', '↙', '∝',
	'′', '∞', '∈', '∋', '△', '▽', '\u0338', 0, '∀', '∃', '¬', '∅', 'ℜ', 'ℑ', '⊤', '⊥',
	'ℵ', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
	'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', '∪', '∩', '⊎', '∧', '∨',
	'⊢', '⊣', '⌊', '⌋', '⌈', '⌉', '{', '}', '⟨', '⟩', '|', '‖', '↕', '⇕', '\\', '≀',
	'√', '⨿', '∇', '∫', '⊔', '⊓', '⊑', '⊒', '§', '†', '‡', '¶', '♣', '♢', '♡', '♠',
}

// encOMX is TeX's math extension encoding (cmex10): delimiters in four sizes, then the
// pieces large ones are built of (0 here: no text), then big operators, accents and radicals.
var encOMX = [128]rune{
	'(', ')', '[', ']', '⌊', '⌋', '⌈', '⌉', '{', '}', '⟨', '⟩', '|', '‖', '/', '\\',
	'(', ')', '(', ')', '[', ']', '⌊', '⌋', '⌈', '⌉', '{', '}', '⟨', '⟩', '/', '\\',
	'(', ')', '[', ']', '⌊', '⌋', '⌈', '⌉', '{', '}', '⟨', '⟩', '/', '\\', '/', '\\',
	'(', ')', '[', ']', 0, 0, 0, 0, '{', '}', 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, '⟨', '⟩', '⊔', '⊔', '∮', '∮', '⊙', '⊙', '⊕', '⊕', '⊗', '⊗',
	'∑', '∏', '∫', '⋃', '⋂', '⊎', '∧', '∨', '∑', '∏', '∫', '⋃', '⋂', '⊎', '⋀', '⋁',
	'∐', '∐', '^', '^', '^', '˜', '˜', '˜', '[', ']', '⌊', '⌋', '⌈', '⌉', '{', '}',
	'√', '√', '√', '√', '√', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
}
