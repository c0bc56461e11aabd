package paper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
)

func openPaper(t *testing.T, id string, opts Options) *Document {
	t.Helper()
	doc, err := OpenContext(context.Background(), paperPath(t, id), opts)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return doc
}

// inOrder fails unless every phrase occurs in text, each after the one before.
func inOrder(t *testing.T, text string, phrases ...string) {
	t.Helper()
	at := 0
	for _, p := range phrases {
		i := strings.Index(text[at:], p)
		if i < 0 {
			if strings.Contains(text, p) {
				t.Errorf("%q is out of order", p)
			} else {
				t.Errorf("%q is missing", p)
			}
			return
		}
		at += i + len(p)
	}
}

func TestTwoColumnReadingOrder(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "icml2024_altmeyer_agi_claims", Options{Pages: PageRange{{1, 2}}})
	inOrder(t, doc.Text(),
		"Position: Stop Making Unscientific AGI Performance Claims",
		"Developments in the field of Artificial Intelligence (AI), and particularly large language models (LLMs)",
		"in interpreting and communicating about AI research outcomes.",
		// left column ends mid-word, the right column finishes it
		"In 1942, when anti-intellectualism was rising",
		"mulated four ‘institutional imperatives’",
		"In practice, to demonstrate that the",
		"achievement of AGI may be getting closer")

	acl := openPaper(t, "specter_acl2020", Options{Pages: PageRange{{1, 1}}})
	inOrder(t, acl.Text(), "Abstract", "Representation learning is a critical ingredient", "Introduction")
}

func TestSections(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "icml2024_altmeyer_agi_claims", Options{})
	kinds := map[string]string{}
	var titles []string
	for _, s := range doc.Sections {
		kinds[s.Kind] = s.Title
		titles = append(titles, s.Title)
	}
	for _, k := range []string{"title", "abstract", "references"} {
		if _, ok := kinds[k]; !ok {
			t.Errorf("no %s section in %q", k, titles)
		}
	}
	joined := strings.Join(titles, "|")
	inOrder(t, joined, "1. Introduction", "2. Related Work", "3. Surprising Patterns in Latent Spaces?")
	if doc.Meta.Title != "Position: Stop Making Unscientific AGI Performance Claims" || doc.Meta.Pages != 21 {
		t.Errorf("meta = %+v", doc.Meta)
	}
	captions := 0
	for _, p := range doc.Pages {
		for _, b := range p.Blocks {
			if b.Kind == KindCaption && regexp.MustCompile(`^(Figure|Table) \d`).MatchString(b.Text) {
				captions++
			}
		}
	}
	if captions < 3 {
		t.Errorf("found %d figure/table captions, want at least 3", captions)
	}
}

func TestNoMarginLineNumbers(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "multivae_joss", Options{})
	text := doc.Text()
	inOrder(t, text, "MultiVae: A Python package for Multimodal Variational Autoencoders on Partial Datasets.",
		"Summary", "In recent years, there has been a major boom in the development of multimodal machine learning models.")
	if m := regexp.MustCompile(`(?m)^\d{1,3}$`).FindString(text); m != "" {
		t.Errorf("a bare line number %q survived", m)
	}
}

func TestRunningHeadersRemoved(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "icml2024_altmeyer_agi_claims", Options{Pages: PageRange{{2, 6}}})
	for _, p := range doc.Pages {
		for _, b := range p.Blocks {
			if b.Text == "Position: Stop Making Unscientific AGI Performance Claims" {
				t.Errorf("running head left on page %d", p.Number)
			}
			if regexp.MustCompile(`^\d{1,2}$`).MatchString(b.Text) {
				t.Errorf("page number %q left on page %d", b.Text, p.Number)
			}
		}
	}
}

func TestVerticalJapanese(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "jo_japanese_vertical", Options{})
	text := doc.Text()
	inOrder(t, text, "序", "わたくしといふ現象は", "假定された有機交流電燈の", "ひとつの青い照明です",
		"（あらゆる透明な幽霊の複合体）", "これらは二十二箇月の", "けれどもこれら新世代沖積世の")
}

func TestAccentsAndLigatures(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "icml2024_altmeyer_agi_claims", Options{Pages: PageRange{{3, 3}}})
	text := doc.Text()
	for _, w := range []string{"Kıcıman", "Zečević"} {
		if !strings.Contains(text, w) {
			t.Errorf("%q missing", w)
		}
	}
	if strings.ContainsAny(text, "ﬁﬂﬀ\x1f") {
		t.Error("ligature or control character left in text")
	}
}

func TestNormalizeText(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"ﬁnd the ﬂow":         "find the flow",
		"a\x1Fer the shi\x1F": "after the shi",
		"e\u0301te\u0301":     "été",
		"tab\there  x\x00y":   "tab here xy",
		"︵括弧︶、":               "（括弧）、",
	}
	for in, want := range cases {
		if got := normalizeText(in); got != want {
			t.Errorf("normalizeText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGlyphText(t *testing.T) {
	t.Parallel()
	g := func(s string, x, w float64) glyph { return glyph{S: s, X: x, W: w, Size: 10} }
	gs := []glyph{
		g("C", 0, 6), g("a", 6, 5), g("f", 11, 3), g("´", 14, 4), g("e", 14, 4.5), // accent over e
		g("n", 20.5, 5), g("o", 25.5, 5), // gap 2 > 0.15×10: a space
		g("x", 31.5, 5), // gap 1 < 1.5: same word
	}
	if got := normalizeText(glyphText(gs)); got != "Café nox" {
		t.Errorf("glyphText = %q", got)
	}
}

func TestPageRangesAndFormats(t *testing.T) {
	t.Parallel()
	r, err := ParsePages("2-3")
	if err != nil {
		t.Fatal(err)
	}
	doc := openPaper(t, "naacl2006_shinyama", Options{Pages: r})
	if len(doc.Pages) != 2 || doc.Pages[0].Number != 2 || doc.Pages[1].Number != 3 || doc.Meta.Pages != 8 {
		t.Fatalf("pages = %d, meta %+v", len(doc.Pages), doc.Meta)
	}
	var js bytes.Buffer
	if err := doc.Write(&js, "json"); err != nil {
		t.Fatal(err)
	}
	var back Document
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Pages) != 2 || back.Pages[0].Blocks[0].BBox.X1 == 0 {
		t.Fatalf("json round trip: %v", err)
	}
	var md bytes.Buffer
	if err := doc.Write(&md, "markdown"); err != nil || !strings.Contains(md.String(), "<!-- page 2 -->") {
		t.Errorf("markdown: %v", err)
	}
	if err := doc.Write(&md, "pdf"); err == nil {
		t.Error("unknown format accepted")
	}
	if _, err := OpenContext(context.Background(), paperPath(t, "naacl2006_shinyama"), Options{Pages: PageRange{{20, 0}}}); err == nil {
		t.Error("page range past the end accepted")
	}
}

func TestParsePages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want string
		ok   bool
		has  []int
		not  []int
	}{
		{"", "", true, []int{1, 500}, nil},
		{"1-3,5", "1-3,5", true, []int{1, 3, 5}, []int{4, 6}},
		{" 7- ", "7-", true, []int{7, 900}, []int{6}},
		{"-2", "1-2", true, []int{1, 2}, []int{3}},
		{"3-1", "", false, nil, nil},
		{"0", "", false, nil, nil},
		{"a-b", "", false, nil, nil},
		{",", "", false, nil, nil},
	}
	for _, c := range cases {
		r, err := ParsePages(c.in)
		if (err == nil) != c.ok {
			t.Errorf("ParsePages(%q) err = %v", c.in, err)
			continue
		}
		if !c.ok {
			continue
		}
		if r.String() != c.want {
			t.Errorf("ParsePages(%q) = %q, want %q", c.in, r.String(), c.want)
		}
		for _, n := range c.has {
			if !r.Contains(n) {
				t.Errorf("%q should contain %d", c.in, n)
			}
		}
		for _, n := range c.not {
			if r.Contains(n) {
				t.Errorf("%q should not contain %d", c.in, n)
			}
		}
	}
}

func TestCancellationAndProgress(t *testing.T) {
	t.Parallel()
	path := paperPath(t, "naacl2006_shinyama")
	ctx, cancel := context.WithCancel(context.Background())
	var calls []int // Progress is called under the extractor's lock: no race here
	_, err := OpenContext(ctx, path, Options{Progress: func(done, total int) {
		calls = append(calls, done)
		if total != 8 {
			t.Errorf("total = %d", total)
		}
		if done == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Pages already being read when it was cancelled may finish; no new page starts.
	if len(calls) < 2 || len(calls) >= 8 {
		t.Errorf("progress calls = %v, want a stop soon after page 2", calls)
	}
}

func TestAllPapersExtract(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"dlbook_notation_example", "elegantpaper_en", "specter_acl2020", "naacl2006_shinyama"} {
		doc := openPaper(t, id, Options{})
		if len(doc.Text()) < 5000 {
			t.Errorf("%s: only %d characters", id, len(doc.Text()))
		}
	}
}
