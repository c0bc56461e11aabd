package paper

import (
	"testing"
	"unicode"
)

// The embedded tables hold only code points, and known CIDs of each collection map to the
// characters Adobe's CMaps give them (spot checks against the UCS2 CMaps).
func TestCIDMaps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		collection string
		minCIDs    int
		cid        int
		want       rune
	}{
		{"Adobe-Japan1", 23058, 1, ' '},
		{"Adobe-Japan1", 23058, 526, 'あ'},
		{"Adobe-Japan1", 23058, 1125, '亜'},
		{"Adobe-GB1", 30284, 34, 'A'},
		{"Adobe-GB1", 30284, 940, '啊'},
		{"Adobe-CNS1", 19156, 13, ','},
		{"Adobe-CNS1", 19156, 595, '一'},
		{"Adobe-Korea1", 18352, 1086, '가'},
	} {
		table := cidToUnicode(tc.collection)
		if table.len() < tc.minCIDs {
			t.Errorf("%s: %d CIDs, want at least %d", tc.collection, table.len(), tc.minCIDs)
			continue
		}
		if got := table.at(tc.cid); got != tc.want {
			t.Errorf("%s CID %d = %q, want %q", tc.collection, tc.cid, got, tc.want)
		}
		for cid := range table.len() {
			if r := table.at(cid); r < 0 || r > unicode.MaxRune {
				t.Fatalf("%s CID %d maps outside Unicode (%d)", tc.collection, cid, r)
			}
		}
		if table.at(-1) != 0 || table.at(table.len()) != 0 {
			t.Errorf("%s: a CID out of the table has a code point", tc.collection)
		}
	}
	if cidToUnicode("Adobe-Identity") != "" {
		t.Error("an unknown collection has a table")
	}
}
