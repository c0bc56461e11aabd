package paper

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortKeys orders as a stable sort by key does, whatever the runs: merged or quicksorted.
func TestSortKeys(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	sc := new(scratch) // one merge buffer for all, as a page worker has
	for _, n := range []int{0, 1, 2, 3, 10, 100, 1000, 5000} {
		for _, runs := range []int{1, 2, 3, 7, 40, n} {
			keys := make([]sortKey, n)
			for i := range keys {
				// Runs of rising keys with many ties: small integers.
				keys[i] = sortKey{float64(rng.IntN(50)), int32(i)}
			}
			for r := 0; r < runs && n > 0; r++ {
				lo, hi := r*n/runs, (r+1)*n/runs
				slices.SortStableFunc(keys[lo:hi], func(a, b sortKey) int { return cmp.Compare(a.k, b.k) })
			}
			for i := range keys {
				keys[i].i = int32(i)
			}
			want := slices.Clone(keys)
			slices.SortStableFunc(want, func(a, b sortKey) int { return cmp.Compare(a.k, b.k) })
			sc.sortKeys(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("n %d, %d runs: not the stable order", n, runs)
			}
		}
	}
}
