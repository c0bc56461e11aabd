package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/shareddata"
)

// The retrieval engine on the shared collections with the settings Tofu ships: above a
// textbook BM25 with Snowball stemming on CACM (0.481 binary nDCG@10), and far above an
// ASCII-only tokenizer on Chinese.
func TestRetrievalOnSharedCollections(t *testing.T) {
	t.Parallel()
	cacm := shareddata.Require(t, "ir", "cacm")
	zh := shareddata.Require(t, "ir", "cmrc2018-zh")
	rep, err := EvalRetrieval(context.Background(), []string{cacm, zh}, RetrievalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", buf.String())
	c, z := rep.Collections[0], rep.Collections[1]
	if c.Name != "cacm" || c.Docs != 3204 || c.Queries != 52 {
		t.Fatalf("cacm: %+v", c)
	}
	if c.NDCG10Binary <= 0.481 {
		t.Errorf("cacm binary nDCG@10 = %.4f, want above 0.481", c.NDCG10Binary)
	}
	if z.Docs != 848 || z.Queries != 1000 || z.NDCG10 < 0.95 || z.Recall100 < 0.99 {
		t.Errorf("cmrc2018-zh: %+v, want nDCG@10 ≥ 0.95 and recall@100 ≥ 0.99", z)
	}
	ascii, err := EvalRetrieval(context.Background(), []string{zh}, RetrievalOptions{Analyze: ASCIITerms})
	if err != nil {
		t.Fatal(err)
	}
	if a := ascii.Collections[0]; a.NDCG10 > 0.2 || z.NDCG10-a.NDCG10 < 0.7 {
		t.Errorf("ASCII-only on Chinese: nDCG@10 %.4f against %.4f", a.NDCG10, z.NDCG10)
	}
}

// The metrics on a collection small enough to score by hand, and the JSON keys of the
// contract.
func TestRetrievalMetricsByHand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("corpus.jsonl", `{"_id":"d1","title":"Badger value log","text":"garbage collection of the value log"}
{"_id":"d2","title":"Release","text":"how to tag a release"}
{"_id":"d3","title":"Log rotation","text":"rotate the application log daily","metadata":{"authors":["Pooch"]}}
`)
	write("queries.jsonl", `{"_id":"q1","text":"value log garbage"}
{"_id":"q2","text":"written by Pooch"}
{"_id":"q3","text":"unjudged query"}
`)
	write("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td3\t1\nq2\td3\t1\n")
	rep, err := EvalRetrieval(context.Background(), []string{dir}, RetrievalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Collections[0]
	// q1 ranks d1 then d3 (both "log"): ideal in both gradings. q2 finds d3 by its metadata.
	if c.Queries != 2 || c.NDCG10 != 1 || c.NDCG10Binary != 1 || c.MRR10 != 1 || c.Recall100 != 1 {
		t.Fatalf("%+v", c)
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Collections []map[string]any `json:"collections"`
	}
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "docs", "queries", "ndcg10", "ndcg10_binary", "mrr10", "recall100", "p50_ms", "p99_ms"} {
		if _, ok := raw.Collections[0][k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, buf.String())
		}
	}
}

func TestNDCGGradedAndBinary(t *testing.T) {
	t.Parallel()
	rels := map[string]int{"a": 2, "b": 1}
	// b then a: graded DCG = 1 + 2/log2(3); ideal = 2 + 1/log2(3).
	want := (1 + 2/math.Log2(3)) / (2 + 1/math.Log2(3))
	if got := ndcg([]string{"b", "a"}, rels, 10, false); math.Abs(got-want) > 1e-12 {
		t.Errorf("graded = %v, want %v", got, want)
	}
	if got := ndcg([]string{"b", "a"}, rels, 10, true); got != 1 {
		t.Errorf("binary = %v, want 1", got)
	}
	if got := mrr([]string{"x", "b"}, rels, 10); got != 0.5 {
		t.Errorf("mrr = %v", got)
	}
	if got := recall([]string{"a", "x"}, rels, 100); got != 0.5 {
		t.Errorf("recall = %v", got)
	}
}
