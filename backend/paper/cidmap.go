package paper

import (
	"bytes"
	"compress/flate"
	"embed"
	"encoding/binary"
	"fmt"
	"sync"
)

// CJK fonts without a ToUnicode map name glyphs by CID in a registered
// collection (Adobe-Japan1, -GB1, -CNS1, -Korea1). Their CID-to-Unicode tables
// ship inside Tofu, derived from Adobe's UCS2 CMaps (BSD-3-Clause, see
// cidmaps/LICENSE) by cmd/gen-cidmaps, so CJK PDFs read the same with or
// without any system package.
//
//go:generate go run ./cmd/gen-cidmaps -out cidmaps
//go:embed cidmaps/*.bin
var cidMapFiles embed.FS

// cidTables decodes each table once, on first use: most papers need none.
var cidTables = map[string]func() []rune{
	"Adobe-Japan1": sync.OnceValue(func() []rune { return mustLoadCIDMap("Adobe-Japan1") }),
	"Adobe-GB1":    sync.OnceValue(func() []rune { return mustLoadCIDMap("Adobe-GB1") }),
	"Adobe-CNS1":   sync.OnceValue(func() []rune { return mustLoadCIDMap("Adobe-CNS1") }),
	"Adobe-Korea1": sync.OnceValue(func() []rune { return mustLoadCIDMap("Adobe-Korea1") }),
}

// cidToUnicode returns the table of a collection, indexed by CID (0 where a
// CID has no Unicode value), or nil for a collection Tofu does not know.
func cidToUnicode(collection string) []rune {
	if load, ok := cidTables[collection]; ok {
		return load()
	}
	return nil
}

// mustLoadCIDMap panics on a table that does not decode: the tables are
// compiled in, so that is a build defect that TestCIDMaps catches.
func mustLoadCIDMap(collection string) []rune {
	t, err := loadCIDMap(collection)
	if err != nil {
		panic(err)
	}
	return t
}

// loadCIDMap inflates a table written by cmd/gen-cidmaps: zigzag varint deltas
// between the code points of consecutive CIDs.
func loadCIDMap(collection string) ([]rune, error) {
	raw, err := cidMapFiles.ReadFile("cidmaps/" + collection + ".bin")
	if err != nil {
		return nil, fmt.Errorf("cid map %s: %w", collection, err)
	}
	// Sized up front: growing the buffers by doubling touched three times the memory, a
	// good part of extracting a one-page Japanese paper.
	var buf bytes.Buffer
	buf.Grow(2*len(raw) + 1024) // the tables inflate to 1.2-2 times their size
	if _, err := buf.ReadFrom(flate.NewReader(bytes.NewReader(raw))); err != nil {
		return nil, fmt.Errorf("cid map %s: inflate: %w", collection, err)
	}
	data := buf.Bytes()
	n := 0
	for _, c := range data {
		if c < 0x80 { // the last byte of a varint
			n++
		}
	}
	table := make([]rune, 0, n)
	var prev int64
	for len(data) > 0 {
		d, n := binary.Varint(data)
		if n <= 0 {
			return nil, fmt.Errorf("cid map %s: bad varint at CID %d", collection, len(table))
		}
		data = data[n:]
		prev += d
		if prev < 0 || prev > 0x10FFFF {
			return nil, fmt.Errorf("cid map %s: CID %d maps outside Unicode (%d)", collection, len(table), prev)
		}
		table = append(table, rune(prev))
	}
	return table, nil
}
