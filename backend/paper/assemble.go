package paper

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

var (
	numberedHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^((\d{1,2}|[A-H])(\.\d{1,2}){0,3})\.?\s+\p{Lu}`) })
	namedHeading    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(abstract|introduction|references|bibliography|acknowledge?ments?|conclusions?|related work|appendix|discussion|summary|statement of need|background|limitations|future work|contents)$`)
	})
	captionStart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(Figure|Fig\.|Table|Tab\.|Algorithm|Listing)\s*[A-Z]?\d+(\.\d+)?\s*[.:|]`)
	})
	pageNumber = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(page\s*)?[-–—(]?\s*([0-9]{1,4}|[ivxlc]{1,6})\s*[-–—)]?(\s*(of|/)\s*[0-9]{1,4})?$`)
	})
	digitsRun = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+`) })
)

// assemble cleans running headers and footers across pages, groups lines
// into blocks, labels them and records the sections.
func assemble(doc *Document, raws []rawPage) {
	body := bodySize(raws)
	dropRunning(raws, body)
	inRefs := false
	for _, rp := range raws {
		p := Page{Number: rp.number, Width: rp.box.X1 - rp.box.X0, Height: rp.box.Y1 - rp.box.Y0, Blocks: []Block{}}
		lines, notes := splitFootnotes(rp.lines, body, rp.box)
		for _, bl := range blocksOf(lines, body, rp.number == raws[0].number && rp.number == 1) {
			if bl.Kind == KindHeading || bl.Kind == KindTitle {
				sec := Section{Title: bl.Text, Level: headingLevel(bl.Text), Page: rp.number}
				if m := numberedHeading().FindStringSubmatch(bl.Text); m != nil && bl.Kind == KindHeading {
					sec.Number = m[1]
				}
				sec.Name = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(bl.Text, sec.Number), "."))
				lower := strings.ToLower(strings.TrimSpace(numberedHeading().ReplaceAllString(bl.Text, "")))
				switch {
				case bl.Kind == KindTitle:
					sec.Level, sec.Kind = 0, "title"
				case strings.HasPrefix(strings.ToLower(bl.Text), "abstract"):
					sec.Kind = "abstract"
				case lower == "references" || lower == "bibliography" || strings.HasSuffix(strings.ToLower(bl.Text), "references"):
					sec.Kind = "references"
				}
				inRefs = sec.Kind == "references" || (inRefs && sec.Level > 1)
				doc.Sections = append(doc.Sections, sec)
			} else if inRefs && bl.Kind == KindParagraph {
				bl.Kind = KindReference
			}
			bl.Section = len(doc.Sections) - 1
			p.Blocks = append(p.Blocks, bl)
		}
		for _, n := range notes {
			p.Blocks = placeNote(p.Blocks, n, len(doc.Sections)-1)
		}
		doc.Pages = append(doc.Pages, p)
	}
	if doc.Meta.Title == "" {
		for _, s := range doc.Sections {
			if s.Kind == "title" {
				doc.Meta.Title = s.Title
				break
			}
		}
	}
}

// placeNote puts a footnote where it is printed, at the foot of its column: after the last
// block in reading order that stands above it across its width (the last of its column; on
// a page of one column, the page's last), in that block's section; after the page's blocks
// when none does (section: the page's last). Text reads it there, or after the paragraph in
// progress when the column ends inside one (Document.walk).
func placeNote(blocks []Block, n Block, section int) []Block {
	at := -1
	for i, b := range blocks {
		if b.BBox.X0 < n.BBox.X1 && n.BBox.X0 < b.BBox.X1 && b.BBox.Y0 >= n.BBox.Y1-1 {
			at = i
		}
	}
	if at < 0 || at == len(blocks)-1 {
		n.Section = section
		return append(blocks, n)
	}
	n.Section = blocks[at].Section
	return slices.Insert(blocks, at+1, n)
}

// bodySize is the font size carrying the most text; on a tie, the smaller (the weights are
// in a map, whose order changes from run to run: a tie made a document's title and blocks
// differ between two extractions of it).
func bodySize(raws []rawPage) float64 {
	weight := map[float64]int{}
	for _, rp := range raws {
		for _, l := range rp.lines {
			weight[l.size] += len(l.text)
		}
	}
	best, size := 0, 10.0
	for s, w := range weight {
		if w > best || w == best && best > 0 && s < size {
			best, size = w, s
		}
	}
	return size
}

// dropRunning removes page numbers and lines repeated in the top or bottom
// margin of many pages (running heads, conference footers).
func dropRunning(raws []rawPage, body float64) {
	inMargin := func(l line, box BBox) bool {
		h := box.Y1 - box.Y0
		return l.box.Y0 > box.Y0+0.9*h || l.box.Y1 < box.Y0+0.1*h
	}
	key := func(l line) string {
		return strings.ToLower(digitsRun().ReplaceAllString(l.text, "#"))
	}
	seen := map[string]int{}
	for _, rp := range raws {
		keys := map[string]bool{}
		for _, l := range rp.lines {
			if inMargin(l, rp.box) {
				keys[key(l)] = true
			}
		}
		for k := range keys {
			seen[k]++
		}
	}
	threshold := max(2, int(math.Ceil(0.4*float64(len(raws)))))
	for i := range raws {
		rp := &raws[i]
		out := rp.lines[:0]
		for _, l := range rp.lines {
			if inMargin(l, rp.box) && !l.vertical {
				if pageNumber().MatchString(l.text) {
					continue
				}
				if len(raws) >= 3 && seen[key(l)] >= threshold && l.size <= body*1.15 {
					continue
				}
			}
			out = append(out, l)
		}
		rp.lines = out
	}
}

// blocksOf groups consecutive lines into blocks and labels them.
func blocksOf(lines []line, body float64, firstPage bool) []Block {
	var out []Block
	var cur []line
	titleSize := 0.0
	if firstPage {
		titleSize = titleLineSize(lines, body)
	}
	flush := func() {
		if len(cur) == 0 {
			return
		}
		out = append(out, makeBlock(cur, body, titleSize))
		cur = cur[:0] // makeBlock keeps nothing of it
	}
	edges := groupEdges(lines)
	for _, l := range lines {
		if len(cur) > 0 && breaksBlock(cur, l, body, edges[l.group], titleSize) {
			flush()
		}
		cur = append(cur, l)
	}
	flush()
	return out
}

func groupEdges(lines []line) map[int][2]float64 {
	m := map[int][2]float64{}
	for _, l := range lines {
		e, ok := m[l.group]
		if !ok {
			e = [2]float64{l.box.X0, l.box.X1}
		}
		m[l.group] = [2]float64{min(e[0], l.box.X0), max(e[1], l.box.X1)}
	}
	return m
}

// titleLineSize is the size of the largest text in the top half of page one,
// if it is clearly larger than the body text.
func titleLineSize(lines []line, body float64) float64 {
	best := 0.0
	top := math.Inf(-1)
	for _, l := range lines {
		top = max(top, l.box.Y1)
	}
	for _, l := range lines {
		if l.box.Y1 > top-300 && l.size > best && len([]rune(l.text)) > 3 {
			best = l.size
		}
	}
	if best >= body*1.25 {
		return best
	}
	return 0
}

func isHeadingLine(l line, body float64) bool {
	t := l.text
	if len([]rune(t)) > 90 || l.vertical {
		return false
	}
	emphasised := l.bold || l.size > body*1.08
	if namedHeading().MatchString(strings.TrimRight(t, ".:")) {
		return emphasised || strings.EqualFold(t, "abstract") || strings.EqualFold(t, "references")
	}
	if numberedHeading().MatchString(t) && emphasised && !strings.HasSuffix(t, ".") {
		return true
	}
	m := numberedHeading().FindStringSubmatch(t)
	return m != nil && emphasised && namedHeading().MatchString(strings.TrimSpace(t[len(m[1]):]))
}

func breaksBlock(cur []line, l line, body float64, edge [2]float64, titleSize float64) bool {
	prev := cur[len(cur)-1]
	if l.group != prev.group || l.vertical != prev.vertical {
		return true
	}
	if l.vertical {
		return false
	}
	size := max(prev.size, l.size)
	isTitle := func(x line) bool { return titleSize > 0 && math.Abs(x.size-titleSize) < 0.5 }
	switch {
	case isTitle(prev) != isTitle(l):
		return true
	case isHeadingLine(l, body), isHeadingLine(prev, body) && !isTitle(prev):
		return true
	case captionStart().MatchString(l.text):
		return true
	case prev.box.Y0-l.box.Y1 > 0.9*size:
		return true
	case math.Abs(prev.size-l.size) > 0.15*size:
		return true
	}
	indent := l.box.X0 - edge[0]
	prevIndent := prev.box.X0 - edge[0]
	if indent > 0.7*size && indent < 4*size && prevIndent < 0.3*size && len(cur) > 0 {
		return true
	}
	return prev.box.X1 < edge[1]-4*size && l.box.X0-edge[0] < 0.3*size && strings.HasSuffix(prev.text, ".")
}

func makeBlock(lines []line, body, titleSize float64) Block {
	b := Block{Kind: KindParagraph, BBox: lines[0].box}
	var sb strings.Builder
	prev := ""
	for i, l := range lines {
		b.BBox = BBox{min(b.BBox.X0, l.box.X0), min(b.BBox.Y0, l.box.Y0), max(b.BBox.X1, l.box.X1), max(b.BBox.Y1, l.box.Y1)}
		if i == 0 {
			prev = l.text
			continue
		}
		if l.vertical {
			sb.WriteString(prev)
			sb.WriteByte('\n')
			prev = l.text
			continue
		}
		var sep string
		prev, sep = joinLine(prev, l.text)
		sb.WriteString(prev)
		sb.WriteString(sep)
		prev = l.text
	}
	sb.WriteString(prev)
	b.Text = sb.String()
	switch {
	case titleSize > 0 && math.Abs(lines[0].size-titleSize) < 0.5:
		b.Kind = KindTitle
	case len(lines) <= 2 && isHeadingLine(lines[0], body):
		b.Kind = KindHeading
	case captionStart().MatchString(b.Text):
		b.Kind = KindCaption
	}
	return b
}

// joinLine decides how a paragraph line meets the next: a word hyphenated
// across the break ("extrac-" + "tion") loses its hyphen and the space, CJK
// text stays unspaced, everything else gets a space.
func joinLine(prev, next string) (string, string) {
	nr := firstRune(next)
	if n := len(prev); n >= 2 && prev[n-1] == '-' && unicode.IsLetter(lastRune(prev[:n-1])) && unicode.IsLower(nr) {
		return prev[:n-1], ""
	}
	if isCJK(lastRune(prev)) && isCJK(nr) {
		return prev, ""
	}
	return prev, " "
}

// headingLevel counts the parts of a heading's number: "2.1 Setup" is 2.
func headingLevel(text string) int {
	m := numberedHeading().FindStringSubmatch(text)
	if m == nil {
		return 1
	}
	return strings.Count(m[1], ".") + 1
}
