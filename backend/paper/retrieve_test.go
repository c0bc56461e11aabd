package paper

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestChunksStayInSections(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Word after word makes a sentence. ", 40) // 240 words per block
	doc := &Document{Pages: []Page{
		{Number: 1, Blocks: []Block{
			{Kind: KindTitle, Text: "A Title"},
			{Kind: KindHeading, Text: "1 Introduction"},
			{Kind: KindParagraph, Text: long},
			{Kind: KindParagraph, Text: long},
		}},
		{Number: 2, Blocks: []Block{
			{Kind: KindParagraph, Text: long},
			{Kind: KindHeading, Text: "2 Method"},
			{Kind: KindParagraph, Text: "Short method."},
			{Kind: KindParagraph, Text: strings.Repeat("long ", 1300)},
			{Kind: KindHeading, Text: "References"},
			{Kind: KindReference, Text: "A. Author. A paper. 2020."},
		}},
	}}
	chunks := doc.Chunks()
	var got []string
	for _, c := range chunks {
		got = append(got, fmt.Sprintf("%d %s %v %d", c.ID, c.Section, c.Pages, c.Words))
		if c.Words > ChunkMaxWords {
			t.Errorf("chunk %d has %d words", c.ID, c.Words)
		}
	}
	want := []string{
		"0 1 Introduction [1] 480",
		"1 1 Introduction [2] 240",
		"2 2 Method [2] 352", // the short paragraph joins the first piece of the long one
		"3 2 Method [2] 350",
		"4 2 Method [2] 350",
		"5 2 Method [2] 250",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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
		hits := NewIndex(chunks).Search(tc.question, 4)
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
