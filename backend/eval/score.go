package eval

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Tokens splits text into comparable words: NFKC, lower case, runs of
// letters and digits; every CJK character is a token of its own because
// those scripts do not separate words. Latin tokens of one character (stray
// math symbols, list markers) are dropped.
func Tokens(s string) []string {
	s = strings.ToLower(norm.NFKC.String(s))
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 1 {
			out = append(out, string(cur))
		}
		cur = cur[:0]
	}
	for _, r := range s {
		switch {
		case isCJK(r):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		case unicode.Is(unicode.Mn, r):
		default:
			flush()
		}
	}
	flush()
	return out
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// F1 compares two token lists as bags of words: precision is the share of
// extracted tokens found in the truth, recall the share of the truth found.
func F1(got, want []string) (f1, precision, recall float64) {
	if len(got) == 0 || len(want) == 0 {
		return 0, 0, 0
	}
	counts := map[string]int{}
	for _, w := range want {
		counts[w]++
	}
	overlap := 0
	for _, g := range got {
		if counts[g] > 0 {
			counts[g]--
			overlap++
		}
	}
	precision = float64(overlap) / float64(len(got))
	recall = float64(overlap) / float64(len(want))
	if overlap == 0 {
		return 0, precision, recall
	}
	return 2 * precision * recall / (precision + recall), precision, recall
}

// Order measures reading order on anchor words: tokens that occur exactly
// once in each text. It is the length of the longest run of anchors that
// appear in the same relative order in both texts (an LCS, computed as a
// longest increasing subsequence) divided by the number of anchors, so 1.0
// means every anchor comes in the truth's order. It ignores words missing
// from either side; F1 accounts for those.
func Order(got, want []string) float64 {
	once := func(ts []string) map[string]int {
		pos := map[string]int{}
		seen := map[string]int{}
		for i, t := range ts {
			seen[t]++
			pos[t] = i
		}
		for t, n := range seen {
			if n != 1 {
				delete(pos, t)
			}
		}
		return pos
	}
	gp, wp := once(got), once(want)
	type pair struct{ g, w int }
	var anchors []pair
	for t, g := range gp {
		if w, ok := wp[t]; ok {
			anchors = append(anchors, pair{g, w})
		}
	}
	if len(anchors) == 0 {
		return 0
	}
	sort.Slice(anchors, func(i, j int) bool { return anchors[i].g < anchors[j].g })
	var tails []int // patience sorting: tails[k] is the smallest end of an increasing run of length k+1
	for _, a := range anchors {
		k := sort.SearchInts(tails, a.w)
		if k == len(tails) {
			tails = append(tails, a.w)
		} else {
			tails[k] = a.w
		}
	}
	return float64(len(tails)) / float64(len(anchors))
}

// Symbols counts the math and typographic symbols of a text: Greek letters, mathematical
// operators and relations (Unicode Sm), arrows, delimiters of mathematics (⟨ ⟩ ‖ ⌊ ⌋ ⌈ ⌉)
// and § † ‡ ¶ ′, outside ASCII (the ASCII ones, + = < >, cannot tell an equation from a
// plain text). Shapes that are one character to a reader count as one: TeX's variant Greek
// letters (ϵ ϕ ϑ ϖ ϱ ς µ) as their plain forms, the dot operator as the middle dot.
func Symbols(s string) map[rune]int {
	m := map[rune]int{}
	for _, r := range s {
		if r < 0x80 {
			continue
		}
		if f, ok := symbolFold[r]; ok {
			r = f
		}
		if isSymbol(r) {
			m[r]++
		}
	}
	return m
}

var symbolFold = map[rune]rune{
	'ϵ': 'ε', 'ϕ': 'φ', 'ϑ': 'θ', 'ϖ': 'π', 'ϱ': 'ρ', 'ς': 'σ', 'µ': 'μ', '⋅': '·', '∗': '*',
	'ϒ': 'Υ',
}

var (
	texMacro     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\([a-zA-Z]+|\|)`) })
	texMathSpans = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)\$\$.*?\$\$|\$[^$]*\$|\\\[.*?\\\]|\\\(.*?\\\)|\\begin\{(equation|align|eqnarray|gather|multline)\*?\}.*?\\end\{(equation|align|eqnarray|gather|multline)\*?\}`)
	})
)

func isSymbol(r rune) bool {
	switch {
	case r >= 0x0391 && r <= 0x03C9, unicode.Is(unicode.Sm, r),
		r >= 0x2190 && r <= 0x21FF, r >= 0x2200 && r <= 0x22FF, r >= 0x27E8 && r <= 0x27EB,
		r >= 0x2308 && r <= 0x230B:
		return true
	}
	return strings.ContainsRune("§†‡¶′‖·", r)
}

// SymbolRecall is the share of the reference's symbols an extraction recovers, as
// multisets: each symbol of the reference counts as often as it occurs there, and is found
// as often as the extraction has it, up to that count. A reference without symbols gives 1.
func SymbolRecall(got, want map[rune]int) float64 {
	total, hit := 0, 0
	for r, n := range want {
		total += n
		hit += min(n, got[r])
	}
	if total == 0 {
		return 1
	}
	return float64(hit) / float64(total)
}

// texSymbols are the LaTeX macros of the symbols Symbols counts, as a ground truth in LaTeX
// (or Markdown with LaTeX mathematics) writes them.
var texSymbols = map[string]rune{
	"alpha": 'α', "beta": 'β', "gamma": 'γ', "delta": 'δ', "epsilon": 'ε', "varepsilon": 'ε',
	"zeta": 'ζ', "eta": 'η', "theta": 'θ', "vartheta": 'θ', "iota": 'ι', "kappa": 'κ',
	"lambda": 'λ', "mu": 'μ', "nu": 'ν', "xi": 'ξ', "pi": 'π', "varpi": 'π', "rho": 'ρ',
	"varrho": 'ρ', "sigma": 'σ', "varsigma": 'σ', "tau": 'τ', "upsilon": 'υ', "phi": 'φ',
	"varphi": 'φ', "chi": 'χ', "psi": 'ψ', "omega": 'ω', "Gamma": 'Γ', "Delta": 'Δ',
	"Theta": 'Θ', "Lambda": 'Λ', "Xi": 'Ξ', "Pi": 'Π', "Sigma": 'Σ', "Upsilon": 'Υ',
	"Phi": 'Φ', "Psi": 'Ψ', "Omega": 'Ω',
	"times": '×', "pm": '±', "mp": '∓', "div": '÷', "cdot": '·', "leq": '≤', "le": '≤',
	"geq": '≥', "ge": '≥', "neq": '≠', "ne": '≠', "in": '∈', "notin": '∉', "ni": '∋',
	"to": '→', "rightarrow": '→', "leftarrow": '←', "gets": '←', "Rightarrow": '⇒',
	"Leftarrow": '⇐', "leftrightarrow": '↔', "Leftrightarrow": '⇔', "implies": '⇒',
	"iff": '⇔', "mapsto": '↦', "sum": '∑', "prod": '∏', "int": '∫', "oint": '∮',
	"partial": '∂', "infty": '∞', "nabla": '∇', "approx": '≈', "sim": '∼', "simeq": '≃',
	"equiv": '≡', "propto": '∝', "subset": '⊂', "subseteq": '⊆', "supset": '⊃',
	"supseteq": '⊇', "cup": '∪', "cap": '∩', "forall": '∀', "exists": '∃', "neg": '¬',
	"lnot": '¬', "wedge": '∧', "land": '∧', "vee": '∨', "lor": '∨', "emptyset": '∅',
	"varnothing": '∅', "oplus": '⊕', "otimes": '⊗', "odot": '⊙', "circ": '∘', "ll": '≪',
	"gg": '≫', "prec": '≺', "succ": '≻', "perp": '⊥', "top": '⊤', "bot": '⊥', "vdash": '⊢',
	"langle": '⟨', "rangle": '⟩', "lfloor": '⌊', "rfloor": '⌋', "lceil": '⌈', "rceil": '⌉',
	"Vert": '‖', "|": '‖', "prime": '′', "S": '§', "dagger": '†', "dag": '†', "ddagger": '‡',
	"ddag": '‡', "P": '¶', "setminus": '∖', "star": '⋆', "ast": '*', "bullet": '•',
	"uparrow": '↑', "downarrow": '↓', "sqrt": '√', "aleph": 'ℵ', "ell": 'ℓ',
}

// TeXSymbols counts the symbols of LaTeX source (or Markdown with LaTeX mathematics) as
// Symbols does for text: its macros (\alpha, \leq, \S) by texSymbols, Unicode symbols
// as they are, and a hyphen inside mathematics as the minus sign it prints. Comments and
// everything before \begin{document} (macro definitions) are left out.
func TeXSymbols(src string) map[rune]int {
	src = texComment().ReplaceAllString(src, "$1")
	if i := strings.Index(src, `\begin{document}`); i >= 0 {
		src = src[i:]
	}
	m := Symbols(src)
	for _, loc := range texMathSpans().FindAllStringIndex(src, -1) {
		m['−'] += strings.Count(src[loc[0]:loc[1]], "-")
	}
	for _, sub := range texMacro().FindAllStringSubmatch(src, -1) {
		if r, ok := texSymbols[sub[1]]; ok {
			m[r]++
		}
	}
	if m['−'] == 0 {
		delete(m, '−')
	}
	return m
}
