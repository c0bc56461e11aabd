package search

import (
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// arabicLetters maps letter variants that writers use interchangeably to one form (hamza on
// alef, alef wasla and madda to bare alef; Persian yeh and keheh to the Arabic letters).
var arabicLetters = strings.NewReplacer("أ", "ا", "إ", "ا", "آ", "ا", "ٱ", "ا", "ی", "ي", "ک", "ك")

// normalizeArabic removes the short-vowel marks (tashkeel), the dagger alef and the tatweel,
// which are optional in writing, and unifies the letter variants.
func normalizeArabic(w string) string {
	w = strings.Map(func(r rune) rune {
		if (r >= 0x064B && r <= 0x065F) || r == 0x0670 || r == 0x0640 {
			return -1
		}
		return r
	}, w)
	return arabicLetters.Replace(w)
}

// isPersianOrUrdu reports letters that Arabic does not use: such words get no Arabic stemmer.
func isPersianOrUrdu(w string) bool {
	return strings.ContainsAny(w, "پچژگکیےۀ")
}

// foldAccents removes combining marks after canonical decomposition (é → e); ASCII returns as is.
func foldAccents(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, w)
	if err != nil {
		return w
	}
	return out
}
