package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/search"
)

// RetrievalOptions tune EvalRetrieval. The zero value is what Tofu ships: search.DefaultParams
// and the fields of search.BEIRFields.
type RetrievalOptions struct {
	Params search.Params
	Fields []search.Field // title, text
	// Analyze replaces the analyzer's terms (a baseline such as an ASCII-only tokenizer).
	Analyze func(text string) []string
}

// CollectionResult is one collection's figures. The JSON keys up to p99_ms are a contract
// (issue 14); the rest are extra.
type CollectionResult struct {
	Name         string  `json:"name"`
	Docs         int     `json:"docs"`
	Queries      int     `json:"queries"` // judged queries, the ones measured
	NDCG10       float64 `json:"ndcg10"`
	NDCG10Binary float64 `json:"ndcg10_binary"`
	MRR10        float64 `json:"mrr10"`
	Recall100    float64 `json:"recall100"`
	P50ms        float64 `json:"p50_ms"`
	P99ms        float64 `json:"p99_ms"`
	BuildMS      float64 `json:"build_ms"`
	IndexTerms   int     `json:"index_terms"`
	IndexBytes   int64   `json:"index_bytes"` // postings and term bytes, an estimate of memory held
}

// RetrievalReport is the outcome of EvalRetrieval.
type RetrievalReport struct {
	K1          float64            `json:"k1"`
	B           float64            `json:"b"`
	Collections []CollectionResult `json:"collections"`
}

// EvalRetrieval indexes each BEIR-layout directory (corpus.jsonl, queries.jsonl, qrels.tsv)
// and measures ranking quality and speed on its judged queries.
func EvalRetrieval(ctx context.Context, dirs []string, opt RetrievalOptions) (*RetrievalReport, error) {
	if opt.Params == (search.Params{}) {
		opt.Params = search.DefaultParams
	}
	if opt.Fields == nil {
		opt.Fields = search.BEIRFields
	}
	rep := &RetrievalReport{K1: opt.Params.K1, B: opt.Params.B}
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := evalCollection(ctx, dir, opt)
		if err != nil {
			return nil, fmt.Errorf("collection %s: %w", dir, err)
		}
		rep.Collections = append(rep.Collections, *res)
	}
	return rep, nil
}

func evalCollection(ctx context.Context, dir string, opt RetrievalOptions) (*CollectionResult, error) {
	col, err := LoadBEIR(dir)
	if err != nil {
		return nil, err
	}
	ix := search.NewIndex(search.NewAnalyzer(), opt.Params, opt.Fields...)
	start := time.Now()
	for _, d := range col.Docs {
		if opt.Analyze != nil {
			ix.AddTerms(d.ID, [][]string{opt.Analyze(d.Title), opt.Analyze(d.Text), opt.Analyze(d.Meta)})
		} else {
			ix.Add(search.Doc{ID: d.ID, Fields: []string{d.Title, d.Text, d.Meta}})
		}
	}
	res := &CollectionResult{
		Name: filepath.Base(filepath.Clean(dir)), Docs: len(col.Docs),
		BuildMS: round4(ms(time.Since(start))),
	}
	res.IndexTerms, res.IndexBytes = ix.Size()
	var times []float64
	for _, q := range col.Queries {
		rels := col.Qrels[q.ID]
		if len(rels) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		var hits []search.Hit
		if opt.Analyze != nil {
			hits = ix.SearchTerms(opt.Analyze(q.Text), 100)
		} else {
			hits = ix.Search(q.Text, 100)
		}
		times = append(times, ms(time.Since(t0)))
		ranked := make([]string, len(hits))
		for i, h := range hits {
			ranked[i] = h.ID
		}
		res.NDCG10 += ndcg(ranked, rels, 10, false)
		res.NDCG10Binary += ndcg(ranked, rels, 10, true)
		res.MRR10 += mrr(ranked, rels, 10)
		res.Recall100 += recall(ranked, rels, 100)
		res.Queries++
	}
	if res.Queries == 0 {
		return nil, fmt.Errorf("no query has a judgement in qrels.tsv")
	}
	n := float64(res.Queries)
	res.NDCG10, res.NDCG10Binary = round4(res.NDCG10/n), round4(res.NDCG10Binary/n)
	res.MRR10, res.Recall100 = round4(res.MRR10/n), round4(res.Recall100/n)
	sort.Float64s(times)
	res.P50ms, res.P99ms = round4(percentile(times, 0.50)), round4(percentile(times, 0.99))
	return res, nil
}

// ndcg is nDCG@k with the judgement as gain (pytrec_eval's convention), or 1 for every
// relevant document when binary.
func ndcg(ranked []string, rels map[string]int, k int, binary bool) float64 {
	gain := func(r int) float64 {
		if r <= 0 {
			return 0
		}
		if binary {
			return 1
		}
		return float64(r)
	}
	dcg := 0.0
	for i, id := range ranked {
		if i >= k {
			break
		}
		dcg += gain(rels[id]) / math.Log2(float64(i+2))
	}
	var ideal []float64
	for _, r := range rels {
		if g := gain(r); g > 0 {
			ideal = append(ideal, g)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(ideal)))
	idcg := 0.0
	for i, g := range ideal {
		if i >= k {
			break
		}
		idcg += g / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func mrr(ranked []string, rels map[string]int, k int) float64 {
	for i, id := range ranked {
		if i >= k {
			break
		}
		if rels[id] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

func recall(ranked []string, rels map[string]int, k int) float64 {
	total, found := 0, 0
	for _, r := range rels {
		if r > 0 {
			total++
		}
	}
	for i, id := range ranked {
		if i < k && rels[id] > 0 {
			found++
		}
	}
	if total == 0 {
		return 0
	}
	return float64(found) / float64(total)
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// WriteJSON writes the report as indented JSON.
func (r *RetrievalReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes one row per collection.
func (r *RetrievalReport) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "BM25F k1=%.2f b=%.2f\n", r.K1, r.B)
	fmt.Fprintf(bw, "%-16s %6s %7s %8s %8s %7s %9s %7s %7s %9s %8s\n",
		"collection", "docs", "queries", "nDCG@10", "binary", "MRR@10", "recall@100", "p50 ms", "p99 ms", "build ms", "index KB")
	for _, c := range r.Collections {
		fmt.Fprintf(bw, "%-16s %6d %7d %8.4f %8.4f %7.4f %9.4f %7.3f %7.3f %9.1f %8d\n",
			c.Name, c.Docs, c.Queries, c.NDCG10, c.NDCG10Binary, c.MRR10, c.Recall100, c.P50ms, c.P99ms, c.BuildMS, c.IndexBytes/1024)
	}
	return bw.Flush()
}

// BEIRDoc is one corpus record. Meta is the text of its metadata: every string inside
// "metadata" (authors, keywords, venue…), one per line, in key order.
type BEIRDoc struct {
	ID       string         `json:"_id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
	Meta     string         `json:"-"`
}

// metaText collects the strings of a decoded JSON value, maps in key order.
func metaText(v any, out *strings.Builder) {
	switch x := v.(type) {
	case string:
		if x != "" {
			out.WriteString(x)
			out.WriteByte('\n')
		}
	case []any:
		for _, e := range x {
			metaText(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			metaText(x[k], out)
		}
	}
}

// BEIRQuery is one query record.
type BEIRQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// BEIR is a collection in BEIR layout.
type BEIR struct {
	Docs    []BEIRDoc
	Queries []BEIRQuery
	Qrels   map[string]map[string]int // query → document → judgement
}

// LoadBEIR reads corpus.jsonl, queries.jsonl and qrels.tsv (with its header line).
func LoadBEIR(dir string) (*BEIR, error) {
	col := &BEIR{Qrels: map[string]map[string]int{}}
	if err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(b []byte) error {
		var d BEIRDoc
		err := json.Unmarshal(b, &d)
		var meta strings.Builder
		metaText(map[string]any(d.Metadata), &meta)
		d.Meta, d.Metadata = meta.String(), nil
		col.Docs = append(col.Docs, d)
		return err
	}); err != nil {
		return nil, err
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(b []byte) error {
		var q BEIRQuery
		err := json.Unmarshal(b, &q)
		col.Queries = append(col.Queries, q)
		return err
	}); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "qrels.tsv"))
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Split(strings.TrimRight(line, "\r"), "\t")
		if i == 0 || len(f) < 3 {
			continue // the header, or a blank line
		}
		score, err := strconv.Atoi(strings.TrimSpace(f[2]))
		if err != nil {
			return nil, fmt.Errorf("qrels.tsv line %d: %w", i+1, err)
		}
		if col.Qrels[f[0]] == nil {
			col.Qrels[f[0]] = map[string]int{}
		}
		col.Qrels[f[0]][f[1]] = score
	}
	return col, nil
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s line %d: %w", filepath.Base(path), n, err)
		}
	}
	return sc.Err()
}

// ASCIITerms is the baseline tokenizer of the issue: lower case, split on anything but
// [a-z0-9_], one-character tokens dropped. It finds nothing in Chinese.
func ASCIITerms(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) {
		if len(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}
