package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/clipperhouse/uax29/v2/words"
	"golang.org/x/text/unicode/norm"
)

// Analyzer turns text into index terms. The same analysis runs on documents and queries:
//
//   - NFKC (full-width forms, ligatures) and lower case;
//   - Unicode word segmentation (UAX #29) for scripts that separate words;
//   - runs of Han, kana, Hangul, Thai, Lao, Khmer and Myanmar as overlapping character
//     bigrams (and each character alone, so a one-character query still matches);
//   - identifiers split at '_', '.', '-' and case changes, each part indexed and the whole
//     joined (parse_config, parseConfig and "parse config" meet);
//   - stopwords dropped and a Snowball stemmer applied for the text's language (Latin-script
//     words) or the word's script (Cyrillic, Arabic, Tamil);
//   - Arabic letter variants and diacritics normalized, Latin and Greek accents folded (after
//     stemming, which needs them, except in English, whose stemmer knows none): resume = résumé.
//
// An Analyzer holds only read-only tables: one value serves every goroutine.
type Analyzer struct {
	stop stopwordSets
}

// NewAnalyzer returns an analyzer over the built-in stopword lists and stemmers.
func NewAnalyzer() *Analyzer {
	return &Analyzer{stop: builtinStopwords()}
}

// Terms analyzes text. lang names the language of Latin-script words ("en", "fr"…); empty
// means detect it from the text, and English when the text gives no sign.
func (a *Analyzer) Terms(text, lang string) []string {
	var out []string
	a.analyze(text, lang, func(t string) { out = append(out, t) })
	return out
}

// Language is the language Terms uses for a text: detected, else fallback, else English.
func (a *Analyzer) Language(text, fallback string) string {
	if l := a.Detect(text); l != "" {
		return l
	}
	if fallback != "" {
		return fallback
	}
	return "en"
}

func (a *Analyzer) analyze(text, lang string, emit func(string)) {
	if lang == "" {
		lang = a.Language(text, "")
	}
	text = norm.NFKC.String(text)
	env := snowballstem.NewEnv("")
	var run []string // the current run of bigram-script characters (a base and its marks)
	flush := func() {
		emitBigrams(run, emit)
		run = run[:0]
	}
	it := words.FromString(text)
	for it.Next() {
		tok := it.Value()
		r, _ := utf8.DecodeRuneInString(tok)
		if isBigramScript(r) {
			for _, c := range strings.ToLower(tok) {
				switch {
				case unicode.In(c, unicode.Mn, unicode.Mc) && len(run) > 0:
					run[len(run)-1] += string(c)
				case unicode.IsLetter(c) || unicode.IsDigit(c) || isBigramScript(c):
					run = append(run, string(c))
				}
			}
			continue
		}
		flush()
		if !hasWordRune(tok) {
			continue
		}
		a.word(tok, lang, env, emit)
	}
	flush()
}

// emitBigrams emits each character and each overlapping pair of a run.
func emitBigrams(run []string, emit func(string)) {
	for i, c := range run {
		emit(c)
		if i+1 < len(run) {
			emit(c + run[i+1])
		}
	}
}

// word analyzes one UAX #29 word of an alphabetic script.
func (a *Analyzer) word(tok, lang string, env *snowballstem.Env, emit func(string)) {
	tok = strings.ReplaceAll(tok, "’", "'")
	if a.stop[lang][strings.ToLower(tok)] {
		return
	}
	tok = a.apostrophes(tok, lang)
	parts := splitIdentifier(tok)
	if len(parts) == 1 {
		if t := a.term(parts[0], lang, env); t != "" {
			emit(t)
		}
		return
	}
	var whole strings.Builder
	for _, p := range parts {
		whole.WriteString(strings.ToLower(p))
		if t := a.term(p, lang, env); t != "" {
			emit(t)
		}
	}
	emit(whole.String())
}

// apostrophes drops an English possessive and a Romance elision (l'homme → homme) and joins
// what is left (o'brien → obrien).
func (a *Analyzer) apostrophes(tok, lang string) string {
	i := strings.LastIndexByte(tok, '\'')
	if i < 0 {
		return tok
	}
	if lang == "en" {
		tok = strings.TrimSuffix(strings.TrimSuffix(tok, "'s"), "'S")
	} else if utf8.RuneCountInString(tok[:i]) <= 3 && i+1 < len(tok) {
		tok = tok[i+1:]
	}
	return strings.ReplaceAll(tok, "'", "")
}

// term lower-cases, drops a stopword, normalizes and stems one word.
func (a *Analyzer) term(w, lang string, env *snowballstem.Env) string {
	w = strings.ToLower(w)
	if w == "" || a.stop[lang][w] {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(w)
	stemLang := lang
	switch {
	case unicode.Is(unicode.Arabic, r):
		if isPersianOrUrdu(w) {
			return normalizeArabic(w)
		}
		w, stemLang = normalizeArabic(w), "ar"
		if a.stop["ar"][w] {
			return ""
		}
	case unicode.Is(unicode.Cyrillic, r):
		stemLang = "ru"
	case unicode.Is(unicode.Tamil, r):
		stemLang = "ta"
	case unicode.Is(unicode.Greek, r):
		return foldAccents(strings.ReplaceAll(w, "ς", "σ"))
	case unicode.IsDigit(r):
		return w
	case !isLatinLanguage(lang):
		stemLang = "en" // Latin words inside Chinese or Russian text are mostly English
	}
	if stemLang == "en" {
		w = foldAccents(w) // English's stemmer knows no accents: résumé must stem as resume
	}
	if stem := stemmers[stemLang]; stem != nil {
		env.SetCurrent(w)
		stem(env)
		w = env.Current()
	}
	if stemLang == "ar" {
		return strings.NewReplacer("ى", "ي", "ة", "ه").Replace(w)
	}
	if stemLang != "ru" {
		w = foldAccents(w)
	}
	return w
}

// IsLatinLanguage reports whether lang is one whose words Terms stems as Latin script (a
// fallback for queries that give no sign of their language must be one).
func IsLatinLanguage(lang string) bool { return isLatinLanguage(lang) }

func isLatinLanguage(lang string) bool {
	for _, l := range latinLanguages {
		if l == lang {
			return true
		}
	}
	return lang == "ga"
}

// eachWord yields the lower-cased words of a text (for language detection).
func (a *Analyzer) eachWord(text string, fn func(string)) {
	it := words.FromString(text)
	for it.Next() {
		if tok := it.Value(); hasWordRune(tok) {
			fn(strings.ToLower(strings.ReplaceAll(tok, "’", "'")))
		}
	}
}

func hasWordRune(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// isBigramScript reports the scripts written without spaces between words (and Hangul, whose
// words carry attached particles): they are indexed as character bigrams.
func isBigramScript(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) ||
		r == 'ー' || r == '々' || r == 'ｰ'
}
