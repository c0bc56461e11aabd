package paper

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestChunksStayInSections(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Word after word makes sentences. ", 16) // 80 words per block
	doc := &Document{Pages: []Page{
		{Number: 1, Blocks: []Block{
			{Kind: KindTitle, Text: "A Title"},
			{Kind: KindHeading, Text: "1 Introduction"},
			{Kind: KindParagraph, Text: long},
		}},
		{Number: 2, Blocks: []Block{
			{Kind: KindParagraph, Text: long},
			{Kind: KindParagraph, Text: long},
			{Kind: KindHeading, Text: "2 Method"},
			{Kind: KindParagraph, Text: "Short method."},
			{Kind: KindParagraph, Text: strings.Repeat("long ", 400)},
			{Kind: KindHeading, Text: "References"},
			{Kind: KindReference, Text: "A. Author. A paper. 2020."},
		}},
	}}
	chunks := doc.Chunks()
	var got []string
	for _, c := range chunks {
		got = append(got, fmt.Sprintf("%d %s %v %d", c.ID, c.Section, c.Pages, c.Words))
		if c.Words > ChunkMaxWords+ChunkMinWords {
			t.Errorf("chunk %d has %d words", c.ID, c.Words)
		}
	}
	want := []string{
		"0 1 Introduction [1 2] 160",
		"1 1 Introduction [2] 80", // a passage ends where a paragraph ends
		"2 2 Method [2] 182",      // the short paragraph joins the first piece of the long one
		"3 2 Method [2] 180",
		"4 2 Method [2] 40",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Where the page turns inside a passage, the passage says so.
	if !strings.Contains(chunks[0].Text, "sentences.\n\n[page 2] Word after") || strings.Contains(chunks[1].Text, "[page") {
		t.Errorf("page markers: %q / %q", chunks[0].Text, chunks[1].Text[:40])
	}
	if p := FormatPassage(chunks[0]); !strings.HasPrefix(p, "<passage id=0 section=\"1 Introduction\">\n[page 1] Word") {
		t.Errorf("passage as given to the model: %q", p[:80])
	}
}

// A paragraph that a page break set in two blocks stays in one passage, with its page's
// footnotes after it, not between its halves: the passage sent to the model read "separated
// by ⁴ We also experimented … [page 3] the [SEP] token", cut in two passages at the note.
func TestPassagesKeepAParagraphAcrossThePageWhole(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Word after word makes sentences. ", 30) // 150 words
	doc := &Document{Pages: []Page{
		{Number: 2, Blocks: []Block{
			{Kind: KindHeading, Text: "2 Model"},
			{Kind: KindParagraph, Text: long + "The title and abstract, separated by"},
			{Kind: KindFootnote, Note: "4", Text: "⁴ We also experimented with venues."},
		}},
		{Number: 3, Blocks: []Block{
			{Kind: KindParagraph, Text: "the [SEP] token. " + long},
			{Kind: KindParagraph, Text: "A new paragraph."},
		}},
	}}
	chunks := doc.Chunks()
	var got []string
	for _, c := range chunks {
		got = append(got, fmt.Sprintf("%d p%d %v", c.ID, c.Page(), c.Pages))
	}
	if len(chunks) < 2 || !strings.Contains(chunks[0].Text, "separated by\n\n[page 3] the [SEP] token.") {
		t.Fatalf("the paragraph was cut at the page break: %v\n%q", got, chunks[0].Text)
	}
	// The note is read after the paragraph's end, on its own page.
	if !strings.HasPrefix(FormatPassage(chunks[1]), "<passage id=1 section=\"2 Model\">\n[page 2] ⁴ We also experimented with venues.\n\n[page 3] A new paragraph.") {
		t.Errorf("the footnote is not after the paragraph: %v\n%q", got, chunks[1].Text)
	}
	if want := []string{"0 p2 [2 3]", "1 p2 [2 3]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pages: %v, want %v", got, want)
	}
}

// Subsections whose headings are set at the start of their paragraph (ACL's style) label
// their own passages; a number at the start of a paragraph that is not the section's ("3.5
// million …" in section 2) does not.
func TestRunInSubsectionsLabelTheirPassages(t *testing.T) {
	t.Parallel()
	doc := &Document{Pages: []Page{
		{Number: 2, Blocks: []Block{
			{Kind: KindHeading, Text: "2 Model"},
			{Kind: KindParagraph, Text: "2.1 Overview"},
			{Kind: KindParagraph, Text: "Our goal is to learn representations of papers."},
			{Kind: KindParagraph, Text: "2.4 Selecting Negative Distractors The choice of negative example papers is important."},
			{Kind: KindParagraph, Text: "3.5 Million papers were used, more than before."},
		}},
		{Number: 3, Blocks: []Block{
			{Kind: KindParagraph, Text: "2.5 Negative examples. The second set is harder."},
			{Kind: KindHeading, Text: "3. Experiments"},
			{Kind: KindParagraph, Text: "3.0. Are Networks Born with World Models?"},
			{Kind: KindParagraph, Text: "Some say so, in the text that follows."},
			{Kind: KindParagraph, Text: "3.1 Data We use the corpus of Semantic Scholar."},
			{Kind: KindParagraph, Text: "3.4 Recommendation In the recommendation task, we evaluate embeddings."},
		}},
	}}
	var got []string
	for _, c := range doc.Chunks() {
		got = append(got, c.Section)
	}
	want := []string{"2.1 Overview", "2.4 Selecting Negative Distractors", "2.5 Negative examples", "3.0 Are Networks Born with World Models?", "3.1 Data", "3.4 Recommendation"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sections %q, want %q", got, want)
	}
}

// The case: the passage that defines SPECTER's second set of negatives follows the one
// ending with the first set; a question about negatives gets both, and "section 2.4" finds the
// subsection first.
func TestPassagesBringTheNeighbourAndNamedSection(t *testing.T) {
	t.Parallel()
	para := func(s string) Block { return Block{Kind: KindParagraph, Text: s} }
	filler := strings.Repeat("Unrelated words fill this paragraph about corpora and tokens. ", 12)
	doc := &Document{Pages: []Page{
		{Number: 1, Blocks: []Block{{Kind: KindHeading, Text: "1 Introduction"}, para(filler), para("We discuss negative examples later.")}},
		{Number: 2, Blocks: []Block{
			{Kind: KindHeading, Text: "2 Model"},
			para("2.4 Selecting Negative Distractors We consider two sets of negative examples: the first set simply consists of randomly selected papers. " + filler),
		}},
		{Number: 3, Blocks: []Block{
			para("The second set are hard negatives: papers cited by a paper the query cites. " + filler),
			{Kind: KindHeading, Text: "A Appendix"},
			para("Sections of the appendix list details. " + filler),
		}},
	}}
	ix := NewIndex(doc.Chunks())
	hits := ix.Passages("How are negative examples selected?", PassagesPerQuestion)
	if len(hits) < 2 || hits[0].Chunk.Section != "2.4 Selecting Negative Distractors" || !strings.Contains(hits[1].Chunk.Text, "The second set") {
		t.Fatalf("hits: %+v", hits)
	}
	if p := FormatPassage(hits[1].Chunk); !strings.Contains(p, ">\n[page 3] The second set") {
		t.Errorf("the neighbour starts on page 3 and says so: %q", p[:80])
	}
	hits = ix.Passages("What does section 2.4 say exactly?", PassagesPerQuestion)
	if len(hits) < 2 || !strings.HasPrefix(hits[0].Chunk.Section, "2.4 ") || !strings.HasPrefix(hits[1].Chunk.Section, "2.4 ") {
		t.Fatalf("section 2.4: %+v", hits)
	}
	// Its title is searched too.
	if hits = ix.Passages("distractors", 1); len(hits) != 1 || hits[0].Chunk.Section != "2.4 Selecting Negative Distractors" {
		t.Fatalf("by title: %+v", hits)
	}
}

// A question whose answer is on a known page of a real paper retrieves a chunk of that page
// first.
func TestRetrieveRealPaper(t *testing.T) {
	t.Parallel()
	cases := []struct {
		paper, question string
		page            int
	}{
		{"icml2024_altmeyer_agi_claims", "On which date did the Fed warn that the US economy was at risk of a recession at the onset of the Global Financial Crisis?", 4},
		{"icml2024_altmeyer_agi_claims", "What did the probe predict for sentences about the inflation of birds?", 6},
		{"specter_acl2020", "Which citation-based pretraining objective does SPECTER use, with triplets?", 0},
		{"specter_acl2020", "What does section 2.4 say exactly?", 3},
	}
	for _, tc := range cases {
		doc, err := Open(paperPath(t, tc.paper))
		if err != nil {
			t.Fatal(err)
		}
		chunks := doc.Chunks()
		if len(chunks) < 5 {
			t.Fatalf("%s: only %d chunks", tc.paper, len(chunks))
		}
		hits := NewIndex(chunks).Passages(tc.question, 4) // as the reader retrieves
		if len(hits) == 0 {
			t.Fatalf("%s: nothing retrieved for %q", tc.paper, tc.question)
		}
		if tc.page == 0 {
			continue
		}
		if first := hits[0].Chunk; !contains(first.Pages, tc.page) {
			t.Errorf("%s: %q retrieved pages %v (%s) first, want page %d", tc.paper, tc.question, first.Pages, first.Section, tc.page)
		}
	}
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// A section named by number whose answer is deep in it: its passages come best first, not the
// first five in reading order, and one place is left for the best passage elsewhere.
func TestNamedSectionRankedWithin(t *testing.T) {
	t.Parallel()
	var blocks []Block
	blocks = append(blocks, Block{Kind: KindHeading, Text: "3 Results"})
	for i := range 7 {
		text := fmt.Sprintf("Paragraph %d of the results reports accuracy on benchmarks and tables. ", i) + strings.Repeat("Numbers rise and fall across runs. ", 25)
		if i == 6 {
			text = "Zebras were the hardest class of all the images. " + text
		}
		blocks = append(blocks, Block{Kind: KindParagraph, Text: text})
	}
	blocks = append(blocks, Block{Kind: KindHeading, Text: "4 Discussion"}, Block{Kind: KindParagraph, Text: "Zebras and horses are alike in the discussion of errors."})
	ix := NewIndex((&Document{Pages: []Page{{Number: 1, Blocks: blocks}}}).Chunks())
	hits := ix.Passages("What does section 3 say about zebras?", PassagesPerQuestion)
	if len(hits) != PassagesPerQuestion || !strings.HasPrefix(hits[0].Chunk.Text, "Zebras were") {
		t.Fatalf("first: %+v", hits)
	}
	if last := hits[len(hits)-1].Chunk; last.Section != "4 Discussion" {
		t.Fatalf("no place left for the best passage elsewhere: %q", last.Section)
	}
	// With no other word of the section's, its passages come in reading order.
	hits = ix.Passages("What does section 3 say?", PassagesPerQuestion)
	if !strings.HasPrefix(hits[0].Chunk.Text, "Paragraph 0") || !strings.HasPrefix(hits[1].Chunk.Text, "Paragraph 1") {
		t.Fatalf("reading order: %q, %q", hits[0].Chunk.Text[:20], hits[1].Chunk.Text[:20])
	}
}
