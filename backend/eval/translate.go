package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tofu-research/tofu/backend/lang"
)

// TranslateReport is `tofu eval translate`: per record the detected language, and the share of
// protected spans (code, URLs, paths, identifiers, numbers with units, math) that come back
// byte-exact after a round trip through the adversarial translator (into English and back,
// or into Chinese and back for English texts).
type TranslateReport struct {
	Records   int            `json:"records"`
	Languages map[string]int `json:"languages"` // detected ISO 639-1 code: records
	Spans     int            `json:"spans"`
	Restored  int            `json:"restored"`
	// Labelled counts the records that carry a "lang" field; Correct those detected as labelled.
	Labelled  int `json:"labelled"`
	Correct   int `json:"correct"`
	Chunks    int `json:"chunks"`
	Retries   int `json:"retries"`   // chunk attempts repeated after a lost placeholder
	Fallbacks int `json:"fallbacks"` // translations that gave up and kept the original
	// Wrong lists the records detected otherwise than labelled, and those with spans lost.
	Wrong []TranslateMiss `json:"wrong,omitempty"`
}

// TranslateMiss is one record the eval got wrong.
type TranslateMiss struct {
	Line     int    `json:"line"`
	ID       string `json:"id,omitempty"`
	Label    string `json:"label,omitempty"`
	Detected string `json:"detected"`
	Lost     int    `json:"lost,omitempty"`
	Fallback string `json:"fallback,omitempty"`
}

type translateRecord struct {
	ID               string `json:"id"`
	Lang             string `json:"lang"`
	ProblemStatement string `json:"problem_statement"`
	Problem          string `json:"problem"`
	Text             string `json:"text"`
}

func (r translateRecord) text() string {
	for _, s := range []string{r.ProblemStatement, r.Problem, r.Text} {
		if s != "" {
			return s
		}
	}
	return ""
}

// EvalTranslate reads the JSONL files (records with problem_statement, problem or text; lang
// when known) and measures detection and the placeholder round trip. Chunks are kept small
// (maxChunk runes) so that long records cross chunk boundaries.
func EvalTranslate(ctx context.Context, files []string, maxChunk int) (*TranslateReport, error) {
	rep := &TranslateReport{Languages: map[string]int{}}
	p := &lang.Pipeline{Translator: lang.Adversary{}, MaxChunk: maxChunk, Model: "adversary"}
	for _, f := range files {
		if err := evalTranslateFile(ctx, f, p, rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func evalTranslateFile(ctx context.Context, file string, p *lang.Pipeline, rep *TranslateReport) error {
	fh, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("open %s: %w", file, err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec translateRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("%s:%d: %w", file, line, err)
		}
		text := rec.text()
		if text == "" {
			return fmt.Errorf("%s:%d: no problem_statement, problem or text field", file, line)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.Records++
		det := lang.Detect(text).Code
		rep.Languages[det]++
		miss := TranslateMiss{Line: line, ID: rec.ID, Label: rec.Lang, Detected: det}
		if rec.Lang != "" {
			rep.Labelled++
			if rec.Lang == det {
				rep.Correct++
			}
		}
		spans, restored, fallback, chunks, retries := roundTrip(ctx, p, text, det)
		rep.Spans += spans
		rep.Restored += restored
		rep.Chunks += chunks
		rep.Retries += retries
		if fallback != "" {
			rep.Fallbacks++
			miss.Fallback = fallback
		}
		miss.Lost = spans - restored
		if (rec.Lang != "" && rec.Lang != det) || miss.Lost > 0 || fallback != "" {
			rep.Wrong = append(rep.Wrong, miss)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	return nil
}

// roundTrip translates text out of its language and back, then counts the source's spans
// found byte-exact in the result (each distinct span text at most as often as it occurs in
// the source). A translation that fell back to the original restores nothing.
func roundTrip(ctx context.Context, p *lang.Pipeline, text, from string) (spans, restored int, fallback string, chunks, retries int) {
	to := "en"
	if from == "en" || from == "" {
		to = "zh"
	}
	there := p.Translate(ctx, text, from, to)
	back := p.Translate(ctx, there.Text, to, from)
	chunks, retries = there.Chunks+back.Chunks, there.Retries+back.Retries
	src := lang.Protect(text).Spans
	spans = len(src)
	fallback = there.Fallback
	if fallback == "" {
		fallback = back.Fallback
	}
	if fallback != "" {
		return spans, 0, fallback, chunks, retries
	}
	want := map[string]int{}
	for _, s := range src {
		want[s.Text]++
	}
	for t, n := range want {
		restored += min(n, strings.Count(back.Text, t))
	}
	return spans, restored, "", chunks, retries
}

// WriteJSON writes the report as indented JSON.
func (r *TranslateReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as a short table.
func (r *TranslateReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "records\t%d\n", r.Records)
	codes := make([]string, 0, len(r.Languages))
	for c := range r.Languages {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		name := c
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(tw, "detected %s\t%d\n", name, r.Languages[c])
	}
	if r.Labelled > 0 {
		fmt.Fprintf(tw, "detected as labelled\t%d/%d (%.1f%%)\n", r.Correct, r.Labelled, pct(r.Correct, r.Labelled))
	}
	fmt.Fprintf(tw, "protected spans\t%d\n", r.Spans)
	fmt.Fprintf(tw, "restored byte-exact\t%d (%.1f%%)\n", r.Restored, pct(r.Restored, r.Spans))
	fmt.Fprintf(tw, "chunks / retries / fallbacks\t%d / %d / %d\n", r.Chunks, r.Retries, r.Fallbacks)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range r.Wrong {
		fmt.Fprintf(w, "line %d %s: label %q detected %q lost %d %s\n", m.Line, m.ID, m.Label, m.Detected, m.Lost, m.Fallback)
	}
	return nil
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}
