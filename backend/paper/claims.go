package paper

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/ledongthuc/pdf"
)

// pdfcpu sizes its cross-reference table by the largest object number a file names, and lists
// every number below it that has no object: a 700-byte file naming object 1,000,000,000 in a
// table's subsection, sent to repair because the library refused it (a %PDF-2.0 header then,
// bytes after %%EOF still), took 2 GB and ended in a fatal out-of-memory, which takes the
// window down with it. Before a file goes
// to pdfcpu, the numbers its cross-reference tables, streams and trailers name are read from
// its bytes and bounded as the patched library bounds its own (pdf.MaxObjects).

// The claims' patterns, compiled when a file first goes to repair, not at every start of tofu.
var claimPatterns = sync.OnceValue(func() (p struct{ size, index, subsection *regexp.Regexp }) {
	p.size = regexp.MustCompile(`/Size\s+(\d+)`)
	p.index = regexp.MustCompile(`/Index\s*\[([\d\s]*)\]`)
	// A subsection header in a table: a line of two numbers (an entry has three fields).
	p.subsection = regexp.MustCompile(`(?m)^[ \t]*(\d+)[ \t]+(\d+)[ \t]*\r?$`)
	return p
})

// checkClaims refuses, as too large for repair, a file that names an object number past what
// its size can hold.
func checkClaims(data []byte) error {
	limit := pdf.MaxObjects(int64(len(data)))
	if n := largestClaim(data); n >= limit {
		return overLimit(fmt.Sprintf("its cross-reference names object %d, past the %d objects a file of %d KB can hold; it is not repaired", n, limit, max(1, len(data)>>10)))
	}
	return nil
}

// largestClaim is the largest object number data's cross-reference sections and trailers name
// (a /Size, an /Index pair's end, a table subsection's end), or a number past any bound when
// one does not parse.
func largestClaim(data []byte) int64 {
	pat := claimPatterns()
	var top int64
	claim := func(start, count []byte) {
		s, err1 := strconv.ParseInt(string(start), 10, 64)
		c, err2 := strconv.ParseInt(string(count), 10, 64)
		if err1 != nil || err2 != nil || s > 1<<40 || c > 1<<40 {
			top = 1 << 40
			return
		}
		top = max(top, s+c-1)
	}
	for _, m := range pat.size.FindAllSubmatch(data, -1) {
		claim([]byte("0"), m[1])
	}
	for _, m := range pat.index.FindAllSubmatch(data, -1) {
		f := bytes.Fields(m[1])
		for i := 0; i+1 < len(f); i += 2 {
			claim(f[i], f[i+1])
		}
	}
	// Tables: from each "xref" keyword (not "startxref") to its "trailer".
	for rest := data; ; {
		i := bytes.Index(rest, []byte("xref"))
		if i < 0 {
			break
		}
		table := rest[i+4:]
		rest = table
		if at := len(data) - len(table) - 4; at >= 5 && string(data[at-5:at]) == "start" {
			continue
		}
		if j := bytes.Index(table, []byte("trailer")); j >= 0 {
			table = table[:j]
		}
		for _, m := range pat.subsection.FindAllSubmatch(table, -1) {
			claim(m[1], m[2])
		}
	}
	return top
}
