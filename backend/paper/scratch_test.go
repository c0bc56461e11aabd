package paper

import (
	"slices"
	"testing"
)

// A worker lays out its pages in one scratch space, reused from page to page: each page's
// lines are the ones it gets in a scratch of its own, after larger and smaller pages (read
// forwards, then backwards) left their sort keys, rows and glyphs in it. Vertical writing
// (jo) goes through the same space.
func TestScratchReusedAcrossPages(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"icml2024_altmeyer_agi_claims", "naacl2006_shinyama", "jo_japanese_vertical"} {
		pages := paperPages(t, id)
		fonts := newFontStore(newBudget(1 << 40))
		read := func(w *worker, k int) rawPage {
			rp := readPage(pages[k], k+1, w, newBudget(1<<40), newBudget(1<<40))
			if rp.err != nil {
				t.Fatalf("%s page %d: %v", id, k+1, rp.err)
			}
			return rp
		}
		alone := make([][]line, len(pages))
		for k := range pages {
			alone[k] = read(&worker{fonts: newFontCache(fonts)}, k).lines
		}
		shared := &worker{fonts: newFontCache(fonts)}
		var order []int
		for k := range pages {
			order = append(order, k)
		}
		for k := len(pages) - 1; k >= 0; k-- {
			order = append(order, k)
		}
		for _, k := range order {
			if got := read(shared, k).lines; !slices.Equal(got, alone[k]) {
				t.Errorf("%s page %d: laid out after other pages in one scratch, %d lines differ from its own layout's %d", id, k+1, len(got), len(alone[k]))
			}
		}
	}
}
