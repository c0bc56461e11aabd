package paper

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ledongthuc/pdf"
)

// The patterns of backend/paper compile on first use: package init runs at every start of
// tofu, whatever the command.
var authorSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*(?:;|,|\band\b|&)\s*`) })

// readMeta takes title, authors and year from the Info dictionary; the title
// falls back to the largest text on page one (set by assemble).
func readMeta(rd *pdf.Reader, pages int) (m Meta) {
	m.Pages = pages
	defer func() { _ = recover() }() // a broken Info dictionary only costs metadata
	info := rd.Trailer().Key("Info")
	m.Title = cleanMeta(info.Key("Title").Text())
	m.Producer = cleanMeta(info.Key("Producer").Text())
	for _, a := range authorSep().Split(cleanMeta(info.Key("Author").Text()), -1) {
		if a = strings.TrimSpace(a); a != "" {
			m.Authors = append(m.Authors, a)
		}
	}
	for _, k := range []string{"CreationDate", "ModDate"} {
		d := strings.TrimPrefix(info.Key(k).Text(), "D:")
		if len(d) >= 4 {
			if y, err := strconv.Atoi(d[:4]); err == nil && y > 1900 && y < 2200 {
				m.Year = y
				break
			}
		}
	}
	return m
}

func cleanMeta(s string) string {
	s = normalizeText(s)
	if strings.EqualFold(s, "untitled") {
		return ""
	}
	return s
}
