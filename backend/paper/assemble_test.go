package paper

import "testing"

// The body size is the size carrying the most text, and a tie goes to the smaller size
// whatever the order the weights are kept in: a tie read through a map's order made two
// extractions of one file (pdfcpu's text demos) differ in their title and blocks.
func TestBodySizeTieIsTheSmaller(t *testing.T) {
	t.Parallel()
	raws := []rawPage{{lines: []line{
		{text: "twelve chars", size: 14},
		{text: "same weight.", size: 9},
		{text: "also twelve!", size: 11},
		{text: "short", size: 8},
	}}}
	for range 50 {
		if got := bodySize(raws); got != 9 {
			t.Fatalf("body size %v, want 9 (the smallest of three sizes of 12 characters each)", got)
		}
	}
	raws[0].lines = append(raws[0].lines, line{text: "more", size: 14})
	if got := bodySize(raws); got != 14 {
		t.Fatalf("body size %v, want 14 (16 characters)", got)
	}
}
