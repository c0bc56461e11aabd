package paper

import _ "embed" // the CID tables

// CJK fonts without a ToUnicode map name glyphs by CID in a registered
// collection (Adobe-Japan1, -GB1, -CNS1, -Korea1). Their CID-to-Unicode tables
// ship inside Tofu, derived from Adobe's UCS2 CMaps (BSD-3-Clause, see
// cidmaps/LICENSE) by cmd/gen-cidmaps, so CJK PDFs read the same with or
// without any system package.
//
//go:generate go run ./cmd/gen-cidmaps -out cidmaps
var (
	//go:embed cidmaps/Adobe-Japan1.bin
	japan1 string
	//go:embed cidmaps/Adobe-GB1.bin
	gb1 string
	//go:embed cidmaps/Adobe-CNS1.bin
	cns1 string
	//go:embed cidmaps/Adobe-Korea1.bin
	korea1 string
)

// cidTable is a collection's table as embedded: the code point of CID i is the
// little-endian uint32 at 4i. It is read in place; inflating and decoding a whole
// table (the format before) was a twentieth of extracting a one-page Japanese paper.
type cidTable string

// at returns the code point of a CID, 0 when it has none or is out of the table.
func (t cidTable) at(cid int) rune {
	i := 4 * cid
	if cid < 0 || i+4 > len(t) {
		return 0
	}
	return rune(uint32(t[i]) | uint32(t[i+1])<<8 | uint32(t[i+2])<<16 | uint32(t[i+3])<<24)
}

// len is the number of CIDs in the table.
func (t cidTable) len() int { return len(t) / 4 }

// cidToUnicode returns the table of a collection, or "" for a collection Tofu
// does not know.
func cidToUnicode(collection string) cidTable {
	switch collection {
	case "Adobe-Japan1":
		return cidTable(japan1)
	case "Adobe-GB1":
		return cidTable(gb1)
	case "Adobe-CNS1":
		return cidTable(cns1)
	case "Adobe-Korea1":
		return cidTable(korea1)
	}
	return ""
}
