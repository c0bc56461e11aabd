package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/testtools"
)

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestIndexRanksAndUpdates(t *testing.T) {
	t.Parallel()
	ix := NewIndex(NewAnalyzer(), DefaultParams, Field{"title", 2}, Field{"body", 1})
	ix.Add(Doc{ID: "a", Fields: []string{"Badger compaction", "Notes on the value log."}})
	ix.Add(Doc{ID: "b", Fields: []string{"Release checklist", "Run compaction before tagging a release."}})
	ix.Add(Doc{ID: "c", Fields: []string{"Unrelated", "Nothing to see here."}})
	if got := ids(ix.Search("compaction", 10)); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("compaction: %v, want the title match first", got)
	}
	// Replacing a document drops its old terms.
	ix.Add(Doc{ID: "a", Fields: []string{"Value log", "Garbage collection."}})
	if got := ids(ix.Search("compaction", 10)); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("after replace: %v", got)
	}
	ix.Remove("b")
	ix.Remove("missing")
	if got := ix.Search("compaction", 10); len(got) != 0 {
		t.Fatalf("after remove: %v", got)
	}
	if ix.Len() != 2 {
		t.Fatalf("Len = %d, want 2", ix.Len())
	}
	if got := ids(ix.Search("garbage", 10)); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("garbage: %v", got)
	}
}

// Removing most documents compacts the postings; what is left ranks as in a fresh index.
func TestIndexCompactionKeepsScores(t *testing.T) {
	t.Parallel()
	an := NewAnalyzer()
	churned := NewIndex(an, DefaultParams, Field{"text", 1})
	fresh := NewIndex(an, DefaultParams, Field{"text", 1})
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	text := func() string {
		var w []string
		for range 3 + rng.IntN(8) {
			w = append(w, vocab[rng.IntN(len(vocab))])
		}
		return strings.Join(w, " ")
	}
	for i := range 300 {
		churned.Add(Doc{ID: fmt.Sprint(i), Fields: []string{text()}, Lang: "en"})
	}
	for i := range 300 {
		if i%5 != 0 {
			churned.Remove(fmt.Sprint(i))
			continue
		}
		d := Doc{ID: fmt.Sprint(i), Fields: []string{text()}, Lang: "en"}
		churned.Add(d) // replaced: moves to the end, as in fresh below
		fresh.Add(d)
	}
	for _, q := range []string{"alpha", "beta gamma", "kappa mu zeta"} {
		a, b := churned.Search(q, 0), fresh.Search(q, 0)
		if len(a) != len(b) {
			t.Fatalf("%q: %d hits after churn, %d fresh", q, len(a), len(b))
		}
		for i := range a {
			if a[i].ID != b[i].ID || fmt.Sprintf("%.9f", a[i].Score) != fmt.Sprintf("%.9f", b[i].Score) {
				t.Fatalf("%q hit %d: %v after churn, %v fresh", q, i, a[i], b[i])
			}
		}
	}
}

// Each record is found by a query in its own language, and by English with identifiers.
func TestIndexFindsEveryLanguage(t *testing.T) {
	t.Parallel()
	ix := NewIndex(NewAnalyzer(), DefaultParams, Field{"name", 2}, Field{"body", 1})
	docs := map[string][2]string{
		"zh": {"数据库压缩", "用户偏好：Badger 的 value_log 压缩应在夜间运行，调用 RunValueLogGC。"},
		"ja": {"テスト実行の注意", "統合テストは必ず build/offline.sh で実行すること。make_test_go を使う。"},
		"en": {"Release checklist", "Tag the release after the changelog is written."},
		"fr": {"Préférences de style", "L'utilisateur préfère des messages de commit courts."},
		"ar": {"ملاحظات", "يفضّل المستخدم الإجابات القصيرة"},
	}
	for id, d := range docs {
		ix.Add(Doc{ID: id, Fields: []string{d[0], d[1]}})
	}
	cases := []struct{ query, want string }{
		{"数据库什么时候压缩？", "zh"},
		{"when should RunValueLogGC run on the value log?", "zh"},
		{"テストはどう実行しますか", "ja"},
		{"how to run make test go offline", "ja"},
		{"release changelog", "en"},
		{"messages de commit", "fr"},
		{"الإجابة القصيرة", "ar"},
	}
	for _, tc := range cases {
		hits := ix.Search(tc.query, 3)
		if len(hits) == 0 || hits[0].ID != tc.want {
			t.Errorf("%q: %v, want %s first", tc.query, hits, tc.want)
		}
	}
}

func TestIndexConcurrentUse(t *testing.T) {
	t.Parallel()
	ix := NewIndex(NewAnalyzer(), DefaultParams, Field{"text", 1})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				id := fmt.Sprintf("%d-%d", w, i%50)
				ix.Add(Doc{ID: id, Fields: []string{fmt.Sprintf("record %d about search %d", i, w)}})
				ix.Search("record search", 5)
				if i%3 == 0 {
					ix.Remove(id)
				}
			}
		}()
	}
	wg.Wait()
	if n := ix.Len(); n <= 0 || n > 200 {
		t.Fatalf("Len = %d", n)
	}
}

// memoryCorpus makes n records like memory notes: a name, a description and a body drawn from
// a Zipf-distributed vocabulary of English words, identifiers and Chinese words.
func memoryCorpus(n int) []Doc {
	rng := rand.New(rand.NewPCG(7, 11))
	var vocab []string
	for i := range 5000 {
		switch i % 10 {
		case 0:
			vocab = append(vocab, fmt.Sprintf("func_%d_name", i))
		case 1:
			vocab = append(vocab, string([]rune("数据库检索内存压缩会话模型工具论文")[i%16:i%16+2]))
		default:
			vocab = append(vocab, fmt.Sprintf("w%xq", i))
		}
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 5)), 1.1, 2, uint64(len(vocab)-1))
	words := func(k int) string {
		var b strings.Builder
		for range k {
			b.WriteString(vocab[zipf.Uint64()])
			b.WriteByte(' ')
		}
		return b.String()
	}
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprint(i), Fields: []string{words(4), words(12), words(40 + rng.IntN(120))}, Lang: "en"}
	}
	return docs
}

// BenchmarkSearch10k measures a query over 10,000 memory-like records and reports the median
// and 99th percentile (goal: p50 ≤ 1 ms).
func BenchmarkSearch10k(b *testing.B) {
	ix := NewIndex(NewAnalyzer(), DefaultParams, Field{"name", 2}, Field{"description", 1}, Field{"body", 1})
	for _, d := range memoryCorpus(10000) {
		ix.Add(d)
	}
	queries := []string{}
	for _, d := range memoryCorpus(64) {
		queries = append(queries, d.Fields[1]) // a dozen words, like a recent message
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		ix.Search(queries[i%len(queries)], 5)
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99_ms")
}

func BenchmarkAdd(b *testing.B) {
	docs := memoryCorpus(1000)
	ix := NewIndex(NewAnalyzer(), DefaultParams, Field{"name", 2}, Field{"description", 1}, Field{"body", 1})
	b.ResetTimer()
	for i := range b.N {
		ix.Add(docs[i%len(docs)])
	}
}

// TestPrunedSearchIsExact: a top-k search (MaxScore pruning) returns what ranking every
// document returns: the same documents in the same order, the same scores and matched counts.
func TestPrunedSearchIsExact(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	ix := NewIndex(NewAnalyzer(), DefaultParams, Field{"name", 2}, Field{"description", 1}, Field{"body", 1})
	for _, d := range memoryCorpus(3000) {
		ix.Add(d)
	}
	for i := range 50 {
		ix.Remove(fmt.Sprint(i * 7)) // removed documents in the postings too
	}
	pruned := 0
	for qi, d := range memoryCorpus(200) {
		q := d.Fields[1]
		if qi%3 == 0 {
			q = d.Fields[0]
		}
		all := ix.Search(q, 0)
		for _, k := range []int{1, 5, 12} {
			got := ix.Search(q, k)
			want := all[:min(k, len(all))]
			if len(got) != len(want) {
				t.Fatalf("%q k=%d: %d hits, want %d", q, k, len(got), len(want))
			}
			for j := range got {
				if got[j].ID != want[j].ID || math.Abs(got[j].Score-want[j].Score) > 1e-9*want[j].Score || got[j].Matched != want[j].Matched {
					t.Fatalf("%q k=%d hit %d: %+v, want %+v", q, k, j, got[j], want[j])
				}
			}
			if len(all) > 50 {
				pruned++
			}
		}
	}
	if pruned == 0 {
		t.Fatal("no query had enough hits to prune")
	}
}
