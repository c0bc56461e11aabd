// Package eval measures Tofu against ground truth: PDF extraction quality
// (word F1, reading order, symbol recall) and speed, side by side with pdftotext.
package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/paper"
)

// PDFOptions tune EvalPDF.
type PDFOptions struct {
	// Pdftotext is the pdftotext binary; empty looks it up on PATH.
	Pdftotext string
	// Runs is how many times each extractor runs per paper; the fastest run
	// counts for speed (the machine is shared). Zero means 3.
	Runs int
}

// Score is one extractor's result on one paper.
type Score struct {
	F1        float64 `json:"f1"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Order     float64 `json:"order"`
	// SymbolRecall is the share of the ground truth's math and typographic symbols the
	// extraction recovers, as multisets (Symbols, TeXSymbols, SymbolRecall).
	SymbolRecall float64 `json:"symbol_recall"`
	Symbols      int     `json:"symbols"` // symbols in the extraction
	Seconds      float64 `json:"seconds"`
	PagesPerSec  float64 `json:"pages_per_sec"`
	Words        int     `json:"words"`
	Error        string  `json:"error,omitempty"`
}

// PaperResult compares the extractors on one paper.
type PaperResult struct {
	ID          string `json:"id"`
	Pages       int    `json:"pages"`
	GroundTruth string `json:"ground_truth"` // latex, markdown, text, tei or json
	TruthWords  int    `json:"truth_words"`
	// TruthSymbols is the number of math and typographic symbols in the ground truth.
	TruthSymbols int `json:"truth_symbols"`
	// TofuOfPdftotextSymbols is the share of pdftotext's symbols Tofu recovers (multisets):
	// the count issue 30 started from, independent of how a ground truth writes symbols.
	TofuOfPdftotextSymbols float64 `json:"tofu_of_pdftotext_symbols"`
	Tofu                   Score   `json:"tofu"`
	Pdftotext              Score   `json:"pdftotext"`
}

// Report is the outcome of EvalPDF.
type Report struct {
	Dir       string        `json:"dir"`
	Papers    []PaperResult `json:"papers"`
	Tofu      Score         `json:"tofu_mean"`      // means of F1/order; pages/s over all pages
	Pdftotext Score         `json:"pdftotext_mean"` // same for pdftotext
	Note      string        `json:"note,omitempty"`
}

type manifestEntry struct {
	ID               string `json:"id"`
	PDF              string `json:"pdf"`
	Pages            int    `json:"pages"`
	GroundtruthFiles []struct {
		File string `json:"file"`
	} `json:"groundtruth_files"`
}

// EvalPDF extracts dir/*/paper.pdf with Tofu and with pdftotext -raw and
// scores both against the paper's ground truth. The paper list comes from
// dir/MANIFEST.json when present, else from the folders holding a paper.pdf
// and a groundtruth/ folder.
func EvalPDF(ctx context.Context, dir string, opts PDFOptions) (Report, error) {
	rep := Report{Dir: dir}
	entries, err := listPapers(dir)
	if err != nil {
		return rep, err
	}
	if opts.Runs <= 0 {
		opts.Runs = 3
	}
	bin := opts.Pdftotext
	if bin == "" {
		bin = "pdftotext"
	}
	if p, err := exec.LookPath(bin); err == nil {
		bin = p
	} else {
		bin = ""
		rep.Note = "pdftotext not installed (apt install poppler-utils)"
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		res, err := evalPaper(ctx, dir, e, bin, opts.Runs)
		if err != nil {
			return rep, fmt.Errorf("eval %s: %w", e.ID, err)
		}
		rep.Papers = append(rep.Papers, res)
	}
	rep.Tofu = mean(rep.Papers, func(r PaperResult) Score { return r.Tofu })
	rep.Pdftotext = mean(rep.Papers, func(r PaperResult) Score { return r.Pdftotext })
	return rep, nil
}

func listPapers(dir string) ([]manifestEntry, error) {
	var entries []manifestEntry
	if data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json")); err == nil {
		if err := json.Unmarshal(data, &entries); err != nil {
			return nil, fmt.Errorf("read manifest: %w", err)
		}
		return entries, nil
	}
	pdfs, _ := filepath.Glob(filepath.Join(dir, "*", "paper.pdf"))
	for _, p := range pdfs {
		e := manifestEntry{ID: filepath.Base(filepath.Dir(p)), PDF: "paper.pdf"}
		gts, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "groundtruth", "*"))
		for _, g := range gts {
			rel, _ := filepath.Rel(filepath.Dir(p), g)
			e.GroundtruthFiles = append(e.GroundtruthFiles, struct {
				File string `json:"file"`
			}{rel})
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("no papers in %s (want */paper.pdf with groundtruth/)", dir)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	return entries, nil
}

func evalPaper(ctx context.Context, dir string, e manifestEntry, pdftotext string, runs int) (PaperResult, error) {
	base := filepath.Join(dir, e.ID)
	pdfPath := filepath.Join(base, e.PDF)
	if e.PDF == "" {
		pdfPath = filepath.Join(base, "paper.pdf")
	}
	var files []string
	for _, f := range e.GroundtruthFiles {
		files = append(files, filepath.Join(base, f.File))
	}
	truth, kind, err := groundTruth(files)
	if err != nil {
		return PaperResult{}, err
	}
	want := Tokens(truth)
	wantOrder := want
	if body := truthWithoutNotes(files, kind); body != "" {
		wantOrder = Tokens(body)
	}
	wantSyms := truthSymbols(files, kind)
	res := PaperResult{ID: e.ID, Pages: e.Pages, GroundTruth: kind, TruthWords: len(want)}
	for _, n := range wantSyms {
		res.TruthSymbols += n
	}

	var text string
	res.Tofu.Seconds, err = fastest(runs, func() error {
		doc, err := paper.OpenContext(ctx, pdfPath, paper.Options{})
		if err == nil {
			text = doc.Text()
			res.Pages = len(doc.Pages)
		}
		return err
	})
	res.Tofu = score(res.Tofu.Seconds, err, text, want, wantOrder, wantSyms, res.Pages)

	if pdftotext == "" {
		res.Pdftotext.Error = "pdftotext not installed"
		return res, nil
	}
	var out []byte
	secs, err := fastest(runs, func() error {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, pdftotext, "-raw", "-enc", "UTF-8", pdfPath, "-")
		cmd.Stderr = &stderr
		o, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("pdftotext: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
		}
		out = o
		return nil
	})
	res.Pdftotext = score(secs, err, string(out), want, wantOrder, wantSyms, res.Pages)
	if err == nil {
		res.TofuOfPdftotextSymbols = SymbolRecall(Symbols(text), Symbols(string(out)))
	}
	return res, nil
}

// fastest runs f n times and returns the shortest wall time.
func fastest(n int, f func() error) (float64, error) {
	best := 0.0
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		if d := time.Since(start).Seconds(); i == 0 || d < best {
			best = d
		}
	}
	return best, nil
}

// truthSymbols counts the symbols of the ground truth files of the kind groundTruth chose:
// LaTeX and Markdown through their macros, the other kinds as Unicode text.
func truthSymbols(files []string, kind string) map[rune]int {
	m := map[rune]int{}
	for _, f := range files {
		if gtKind(f) != kind {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var part map[rune]int
		if kind == "latex" || kind == "markdown" {
			part = TeXSymbols(string(data))
		} else {
			part = Symbols(string(data))
		}
		for r, n := range part {
			m[r] += n
		}
	}
	return m
}

// Footnotes in a ground truth, which conventions place differently: GROBID's TEI after the
// whole body, LaTeX at the \footnote call, mid-sentence.
var (
	teiFootnote   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<note[^>]*place="foot"[^>]*>.*?</note>`) })
	latexFootnote = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\\footnote(text)?\s*(\[[^\]]*\])?\s*\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}`)
	})
)

// truthWithoutNotes is the ground truth without its footnotes, for the reading order: where
// a footnote goes is a convention (GROBID's TEI puts them all after the body, LaTeX where
// \footnote is called, pdftotext where printed, Tofu at the foot of their column), so the
// order is measured on the running text, the same for every extractor: a footnote's words
// are no anchors. Empty when the truth has no footnotes to take out.
func truthWithoutNotes(files []string, kind string) string {
	var re *regexp.Regexp
	switch kind {
	case "tei":
		re = teiFootnote()
	case "latex":
		re = latexFootnote()
	default:
		return ""
	}
	var fs []string
	for _, f := range files {
		if gtKind(f) == kind {
			fs = append(fs, f)
		}
	}
	sort.Strings(fs) // as groundTruth reads them
	var b strings.Builder
	found := false
	for _, f := range fs {
		data, err := os.ReadFile(f)
		if err != nil {
			return ""
		}
		if !utf8.Valid(data) {
			continue
		}
		src := string(data)
		if re.MatchString(src) {
			found = true
			src = re.ReplaceAllString(src, " ")
		}
		t, err := convert(kind, src)
		if err != nil {
			return ""
		}
		b.WriteString(t)
		b.WriteString("\n")
	}
	if !found {
		return ""
	}
	return b.String()
}

func score(secs float64, err error, text string, want, wantOrder []string, wantSyms map[rune]int, pages int) Score {
	if err != nil {
		msg := err.Error()
		var pe *paper.Error
		if errors.As(err, &pe) {
			msg = pe.Error()
		}
		return Score{Error: msg}
	}
	got := Tokens(text)
	s := Score{Seconds: secs, Words: len(got)}
	s.F1, s.Precision, s.Recall = F1(got, want)
	s.Order = Order(got, wantOrder)
	syms := Symbols(text)
	s.SymbolRecall = SymbolRecall(syms, wantSyms)
	for _, n := range syms {
		s.Symbols += n
	}
	if secs > 0 {
		s.PagesPerSec = float64(pages) / secs
	}
	return s
}

func mean(rs []PaperResult, pick func(PaperResult) Score) Score {
	var m Score
	n, pages := 0, 0
	for _, r := range rs {
		s := pick(r)
		if s.Error != "" {
			continue
		}
		n++
		pages += r.Pages
		m.F1 += s.F1
		m.Precision += s.Precision
		m.Recall += s.Recall
		m.Order += s.Order
		m.SymbolRecall += s.SymbolRecall
		m.Symbols += s.Symbols
		m.Seconds += s.Seconds
		m.Words += s.Words
	}
	if n == 0 {
		return Score{Error: "no results"}
	}
	m.F1 /= float64(n)
	m.Precision /= float64(n)
	m.Recall /= float64(n)
	m.Order /= float64(n)
	m.SymbolRecall /= float64(n)
	if m.Seconds > 0 {
		m.PagesPerSec = float64(pages) / m.Seconds
	}
	return m
}
