package memory

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkSearch10k is a memory query as recall and memory_search make it (Store.Search: the
// folders checked for changes, the index searched, the records filtered) over 10,000 records
// on disk, a dozen-word query; it reports the median and 99th percentile (goal: p50 ≤ 1 ms).
func BenchmarkSearch10k(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 5)), 1.1, 2, 4999)
	word := func(i uint64) string {
		switch i % 10 {
		case 0:
			return fmt.Sprintf("func_%d_name", i)
		case 1:
			return string([]rune("数据库检索内存压缩会话模型工具论文")[i%16 : i%16+2])
		}
		return fmt.Sprintf("w%xq", i)
	}
	words := func(k int) string {
		var sb strings.Builder
		for range k {
			sb.WriteString(word(zipf.Uint64()))
			sb.WriteByte(' ')
		}
		return sb.String()
	}
	for i := range 10000 {
		r := Record{Name: fmt.Sprintf("record %d %s", i, words(3)), Description: words(12), Body: words(40 + rng.IntN(120)), Enabled: true,
			Created: time.Unix(0, 0).UTC(), Updated: time.Unix(0, 0).UTC()}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%05d.md", i)), []byte(r.Format()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s := NewStore(dir)
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = words(12)
	}
	if _, err := s.Search("", queries[0], 12, false); err != nil { // the first search reads the files
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, err := s.Search("", queries[i%len(queries)], 12, false); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99_ms")
}
