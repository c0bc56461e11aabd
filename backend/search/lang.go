package search

import (
	"sync"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/arabic"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/irish"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/tamil"
	"github.com/blevesearch/snowballstem/turkish"
)

// stemmers are the Snowball stemmers by ISO 639-1 code. A language without one (Greek, Hindi,
// Chinese…) is indexed unstemmed: no stemmer beats a wrong one.
var stemmers = map[string]func(*snowballstem.Env) bool{
	"ar": arabic.Stem, "da": danish.Stem, "nl": dutch.Stem, "en": english.Stem, "fi": finnish.Stem,
	"fr": french.Stem, "de": german.Stem, "hu": hungarian.Stem, "ga": irish.Stem, "it": italian.Stem,
	"no": norwegian.Stem, "pt": portuguese.Stem, "ro": romanian.Stem, "ru": russian.Stem,
	"es": spanish.Stem, "sv": swedish.Stem, "ta": tamil.Stem, "tr": turkish.Stem,
}

// latinLanguages are told apart by their stopwords; the order breaks ties (English first, the
// language Tofu's users most often mix into others). Irish has a stemmer but is not detected:
// its function words (a, an, is, go) are English words too.
var latinLanguages = []string{"en", "fr", "de", "es", "pt", "it", "nl", "sv", "da", "no", "fi", "hu", "ro", "tr"}

// Detect names the language of a text for stemming: by script where a script has one language
// with a stemmer (Cyrillic → Russian, Arabic, Tamil), by stopword counts among Latin-script
// languages, "cjk" for Han, kana and Hangul, "" when nothing tells (a few words without a
// function word): the caller then falls back to a default.
func (a *Analyzer) Detect(text string) string {
	var latin, cyrillic, arabicN, tamilN, cjk int
	for _, r := range text {
		switch {
		case r < 0x80:
			if unicode.IsLetter(r) {
				latin++
			}
		case unicode.Is(unicode.Latin, r):
			latin++
		case unicode.Is(unicode.Cyrillic, r):
			cyrillic++
		case unicode.Is(unicode.Arabic, r):
			arabicN++
		case unicode.Is(unicode.Tamil, r):
			tamilN++
		case isBigramScript(r):
			cjk++
		}
	}
	best, n := "", 0
	for lang, c := range map[string]int{"ru": cyrillic, "ar": arabicN, "ta": tamilN, "cjk": cjk} {
		if c > n || (c == n && c > 0 && lang < best) {
			best, n = lang, c
		}
	}
	if latin <= n {
		return best
	}
	return a.latinLanguage(text)
}

// latinLanguage votes with stopwords; a text with none returns "".
func (a *Analyzer) latinLanguage(text string) string {
	counts := map[string]int{}
	a.eachWord(text, func(w string) {
		mask := latinStopMask()[w]
		for i := 0; mask != 0; i, mask = i+1, mask>>1 {
			if mask&1 != 0 {
				counts[latinLanguages[i]]++
			}
		}
	})
	best, n := "", 0
	for _, lang := range latinLanguages {
		if counts[lang] > n {
			best, n = lang, counts[lang]
		}
	}
	// One shared short word ("de", "on", "a") is chance: another language than English needs
	// two of its function words to win.
	if best != "en" && n < 2 {
		if counts["en"] > 0 {
			return "en"
		}
		return ""
	}
	return best
}

// latinStopMask maps a stopword to the Latin-script languages (bits in latinLanguages' order)
// whose list holds it: one lookup per word instead of one per language. Built on first use.
var latinStopMask = sync.OnceValue(func() map[string]uint32 {
	m := map[string]uint32{}
	for i, lang := range latinLanguages {
		for w := range builtinStopwords()[lang] {
			m[w] |= 1 << i
		}
	}
	return m
})
