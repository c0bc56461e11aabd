package library

import (
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/tofu-research/tofu/backend/store"
)

// citation is a page citation as answers write it: "[p. 4]", "[pp. 4-5]", "[p. 4, 6]",
// "[p. 3; p. 7]" (the front end's lib/citations.ts reads the same forms).
var citation = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[(?:pp?\.\s*\d+(?:\s*[-–]\s*\d+)?(?:\s*[,;]\s*(?:pp?\.\s*)?\d+(?:\s*[-–]\s*\d+)?)*)\]`)
})

var (
	digits    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+`) })
	rangeDash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*[-–]\s*$`) })
)

// CitedPages are the pages an answer cites, in order of first citation; a range counts by
// every page in it.
func CitedPages(answer string) []int {
	var out []int
	for _, cite := range citation().FindAllString(answer, -1) {
		nums := digits().FindAllStringIndex(cite, -1)
		for i := 0; i < len(nums); i++ {
			n, _ := strconv.Atoi(cite[nums[i][0]:nums[i][1]])
			last := n
			// "4-5", "4–5": a range (of at most 50 pages; beyond, only its ends).
			if i+1 < len(nums) && rangeDash().MatchString(cite[nums[i][1]:nums[i+1][0]]) {
				last, _ = strconv.Atoi(cite[nums[i+1][0]:nums[i+1][1]])
				i++
			}
			for p := n; p <= last && p-n <= 50; p++ {
				if p > 0 && !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
			if last-n > 50 && !slices.Contains(out, last) {
				out = append(out, last)
			}
		}
	}
	return out
}

// EvidencePages are the pages of the passages an answer was given.
func EvidencePages(rec store.Retrieval) []int {
	var out []int
	for _, c := range rec.Chunks {
		for _, p := range c.Pages {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// UnsupportedCitations are the pages answer cites that none of the passages it was given is
// on: the model cited a page it was not shown.
func UnsupportedCitations(answer string, rec store.Retrieval) []int {
	evidence := EvidencePages(rec)
	var out []int
	for _, p := range CitedPages(answer) {
		if !slices.Contains(evidence, p) {
			out = append(out, p)
		}
	}
	return out
}
