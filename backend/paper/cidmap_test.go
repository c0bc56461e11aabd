package paper

import "testing"

// The embedded tables decode, and known CIDs of each collection map to the
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
		table, err := loadCIDMap(tc.collection)
		if err != nil {
			t.Fatal(err)
		}
		if len(table) < tc.minCIDs {
			t.Errorf("%s: %d CIDs, want at least %d", tc.collection, len(table), tc.minCIDs)
			continue
		}
		if got := table[tc.cid]; got != tc.want {
			t.Errorf("%s CID %d = %q, want %q", tc.collection, tc.cid, got, tc.want)
		}
		if got := cidToUnicode(tc.collection); len(got) != len(table) {
			t.Errorf("cidToUnicode(%s) has %d CIDs, want %d", tc.collection, len(got), len(table))
		}
	}
	if cidToUnicode("Adobe-Identity") != nil {
		t.Error("an unknown collection has a table")
	}
}
