package lang

import (
	"unicode"

	"github.com/abadojack/whatlanggo"

	"github.com/tofu-research/tofu/backend/search"
)

// Detection is the language of a text.
type Detection struct {
	Code       string  `json:"code"` // ISO 639-1 ("en", "zh"…); "" when the text gives no sign
	Confidence float64 `json:"confidence"`
}

// Detect names the language of text's prose: code, URLs, paths and the other protected spans
// are left out first, since a Chinese bug report is mostly an English traceback. When a script
// written without Latin letters carries a fair share of the prose (a CJK character is about a
// word), the detector sees only that script, so English identifiers left in the prose do not
// outvote it.
func Detect(text string) Detection {
	prose := canonical.ReplaceAllString(Protect(text).Text, " ")
	var latin, other int
	for _, r := range prose {
		switch {
		case !unicode.IsLetter(r):
		case unicode.Is(unicode.Latin, r):
			latin++
		default:
			other++
		}
	}
	if latin+other == 0 {
		return Detection{}
	}
	if other > 0 && other*5 >= latin {
		keep := make([]rune, 0, len(prose))
		for _, r := range prose {
			if !unicode.Is(unicode.Latin, r) {
				keep = append(keep, r)
			}
		}
		prose = string(keep)
	}
	info := whatlanggo.Detect(prose)
	code := info.Lang.Iso6391()
	if info.Lang < 0 {
		code = ""
	}
	// Trigrams say little about a few words ("Let and Find" reads as Hungarian, a Russian
	// sentence as Bulgarian); the retrieval engine's stopword vote (and, for Cyrillic, its
	// prior of Russian) settles an unreliable guess when it has a sign.
	if !info.IsReliable() {
		if voted := search.NewAnalyzer().Detect(prose); voted != "" && voted != "cjk" {
			return Detection{Code: voted, Confidence: info.Confidence}
		}
	}
	return Detection{Code: code, Confidence: info.Confidence}
}
