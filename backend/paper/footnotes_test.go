package paper

import (
	"bytes"
	"strings"
	"testing"
)

// Issue 30: footnotes were read where their column ends, inside the sentence that runs on
// in the next column or page ("separated by … 4We also experimented … the [SEP] token").
// They are blocks of their own kind at the foot of their column, marked, read there when the
// column ends a paragraph and after the paragraph's end when it runs on.
func TestFootnotesKeptApart(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "specter_acl2020", Options{Pages: PageRange{{2, 3}}})
	var notes []Block
	for _, bl := range doc.Pages[0].Blocks {
		if bl.Kind == KindFootnote {
			notes = append(notes, bl)
		}
	}
	if len(notes) != 3 || notes[1].Note != "4" || !strings.HasPrefix(notes[1].Text, "⁴ We also experimented with additional fields") {
		t.Fatalf("footnotes of page 2: %+v", notes)
	}
	text := doc.Text()
	// ³ at the foot of the left column, which ends a paragraph; ⁴ and ⁵ at the foot of the
	// right one, which ends inside a sentence going on on page 3.
	inOrder(t, text, "discuss the details of SPECTER.", "³ https://github.com/allenai/scidocs", "Query paper (PQ)")
	// No note between a sentence's two halves: the text before each ends a sentence.
	paras := strings.Split(text, "\n\n")
	for i := 1; i < len(paras); i++ {
		mark := func(p string) bool { return strings.IndexAny(p, "¹²³⁴⁵⁶⁷⁸⁹") == 0 }
		if mark(paras[i]) && !mark(paras[i-1]) && !endsSentence(paras[i-1]) {
			t.Errorf("a footnote inside a sentence: %q | %q", paras[i-1], paras[i])
		}
	}
	inOrder(t, text, "separated by", "the [SEP] token. We use SciBERT", "⁴ We also experimented", "2.3 Citation-Based Pretraining Objective")
	if strings.Contains(text, "4We also") {
		t.Error("a footnote's mark glued to its text")
	}
	var md, js bytes.Buffer
	if err := doc.Write(&md, "markdown"); err != nil || !strings.Contains(md.String(), "\n> ⁴ We also experimented") {
		t.Errorf("markdown: %v", err)
	}
	if err := doc.Write(&js, "json"); err != nil || !strings.Contains(js.String(), `"kind": "footnote"`) || !strings.Contains(js.String(), `"note": "4"`) {
		t.Errorf("json: %v", err)
	}
}

// Sections carry their number and name, subsections too (ACL sets them in URW's "Medi"
// bold, which was not read as bold: every passage was labelled "2 Model"), and each block
// knows its section.
func TestSectionNumbers(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "specter_acl2020", Options{Pages: PageRange{{1, 4}}})
	at := -1
	for i, s := range doc.Sections {
		if s.Number == "2.4" {
			at = i
			if s.Name != "Selecting Negative Distractors" || s.Level != 2 || s.Page != 3 || s.Title != "2.4 Selecting Negative Distractors" {
				t.Errorf("section 2.4: %+v", s)
			}
		}
	}
	if at < 0 {
		t.Fatalf("no section 2.4 in %+v", doc.Sections)
	}
	var nums []string
	for _, s := range doc.Sections {
		nums = append(nums, s.Number)
	}
	if got := strings.Join(nums, " "); !strings.Contains(got, "1 2 2.1 2.2 2.3 2.4 2.5 3 3.1 3.2 3.3") {
		t.Errorf("section numbers %q", got)
	}
	for _, p := range doc.Pages {
		for _, bl := range p.Blocks {
			if strings.HasPrefix(bl.Text, "The choice of negative example papers") && bl.Section != at {
				t.Errorf("block of 2.4 in section %d", bl.Section)
			}
		}
	}
}

// A left-column line that runs to the gutter (code in a monospace font) read as one
// fragment with the right column's line beside it, a full-width line that cut specter's
// appendix page into bands read out of order ("’sample’: [0, 10 ** -6, 10 ** -5], the
// citation graph via sampled triplets. Citeomatic"). splitAtGutter parts them.
func TestLineRunningToTheGutter(t *testing.T) {
	t.Parallel()
	doc := openPaper(t, "specter_acl2020", Options{Pages: PageRange{{12, 12}}})
	text := doc.Text()
	inOrder(t, text, "{’window’: [5, 10, 15], ’sample’: [0, 10 ** -6, 10 ** -5], ’epochs’",
		"for a total of 27 models", "3. Fasttext-Sum", "4. SIF", "5. ELMo", "6. Citeomatic", "8. SciBERT")
	if strings.Contains(text, "10 ** -5], the citation graph") {
		t.Error("a line of each column read as one")
	}
}

// A figure set between a paragraph's two halves across the page does not end it: the page's
// notes wait past the figure's labels and caption for the paragraph's end (specter p. 7→8:
// "compared with the SciBERT baseline | (a) SPECTER (b) SciBERT | ¹³ … | Figure 2: …").
func TestNotesWaitPastAFigure(t *testing.T) {
	t.Parallel()
	doc := &Document{Pages: []Page{
		{Number: 7, Blocks: []Block{
			{Kind: KindParagraph, Text: "Figure 2 compares our embeddings with the SciBERT baseline"},
			{Kind: KindFootnote, Note: "13", Text: "¹³ A note."},
		}},
		{Number: 8, Blocks: []Block{
			{Kind: KindParagraph, Text: "(a) SPECTER (b) SciBERT"},
			{Kind: KindCaption, Text: "Figure 2: t-SNE visualization."},
			{Kind: KindParagraph, Text: "for a random set of papers."},
			{Kind: KindParagraph, Text: "When comparing them, we observe more."},
		}},
	}}
	want := "Figure 2 compares our embeddings with the SciBERT baseline\n\n(a) SPECTER (b) SciBERT\n\n" +
		"Figure 2: t-SNE visualization.\n\nfor a random set of papers.\n\n¹³ A note.\n\nWhen comparing them, we observe more.\n"
	if got := doc.Text(); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
}
