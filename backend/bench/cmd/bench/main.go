// Command bench prints the figures of issue 18 in one table beside their anchors (`make
// bench`): context replay, start-up, paper extraction and reading order, the window, one agent
// step, UI streaming. With -doc it also writes the table and the machine into the page's
// generated section. It is not part of `make test`: it judges nothing and takes minutes.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/bench"
	"github.com/tofu-research/tofu/backend/eval"
)

type config struct {
	tofu, papers, doc string
	frontend, only    string
	replay            []string
	runs              int
}

func main() {
	var c config
	var replay string
	flag.StringVar(&c.tofu, "tofu", "build/bin/tofu", "the tofu binary to time (built without cgo), with the window program tofu-window beside it")
	flag.StringVar(&c.papers, "papers", "../shared/data/papers", "the papers with ground truth")
	flag.StringVar(&replay, "replay", "../shared/data/trajectories", "trajectory folders to replay, comma-separated")
	flag.IntVar(&c.runs, "runs", 9, "counted runs of each timed command")
	flag.StringVar(&c.frontend, "frontend", "frontend", "the front end, with its node_modules, for the UI streaming benchmark")
	flag.StringVar(&c.only, "only", "", "measure one part only: ui (the UI streaming benchmark), sandbox (what the sandbox adds to a command)")
	flag.StringVar(&c.doc, "doc", "", "write the table into this page's generated section (docs/PERFORMANCE.md)")
	flag.Parse()
	for _, d := range strings.Split(replay, ",") {
		if d = strings.TrimSpace(d); d != "" {
			c.replay = append(c.replay, d)
		}
	}
	if err := mainErr(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func mainErr(ctx context.Context, c config) error {
	machine := bench.Machine()
	started := time.Now().UTC()
	if c.only != "" && c.doc != "" {
		return errors.New("-doc writes the whole table: drop -only")
	}
	var rows []bench.Row
	switch c.only {
	case "":
		for _, dir := range c.replay {
			rows = append(rows, replayRows(dir)...)
		}
		rows = append(rows, startupRows(ctx, c)...)
		rows = append(rows, paperRows(ctx, c)...)
		rows = append(rows, windowRows(ctx, c)...)
		rows = append(rows, sandboxRows(ctx, c)...)
		rows = append(rows, agentStepRow(ctx))
		rows = append(rows, uiStreamingRow(ctx, c.frontend))
	case "sandbox":
		rows = append(rows, sandboxRows(ctx, c)...)
	case "ui":
		rows = append(rows, uiStreamingRow(ctx, c.frontend))
	default:
		return fmt.Errorf("-only %q: the parts are: ui, sandbox", c.only)
	}
	section := fmt.Sprintf("Measured %s on %s; whole-process figures are medians of %d runs, each paired with its anchor run in turn.\n\n%s",
		started.Format("2006-01-02 15:04 UTC"), machine, c.runs, bench.Markdown(rows))
	fmt.Println(section)
	if c.doc == "" {
		return nil
	}
	page, err := os.ReadFile(c.doc)
	if err != nil {
		return err
	}
	out, err := bench.ReplaceInDoc(page, section)
	if err != nil {
		return fmt.Errorf("%s: %w", c.doc, err)
	}
	return os.WriteFile(c.doc, out, 0o644)
}

// replayRows replays a folder of trajectories under the default policy beside none.
func replayRows(dir string) []bench.Row {
	name := "replay " + filepath.Base(filepath.Clean(dir))
	const tokAnchor = "ToFu claims −28.4% vs Claude Code"
	trajs, skipped, err := eval.LoadTrajectories(dir)
	if err == nil && len(trajs) == 0 {
		err = fmt.Errorf("no trajectory in %s", dir)
	}
	var rep eval.ReplayReport
	if err == nil {
		var none, tofu eval.Policy
		none, _ = eval.NewPolicy("none")
		tofu, _ = eval.NewPolicy("tofu")
		rep, err = eval.Replay(trajs, []eval.Policy{none, tofu}, eval.ReplayOptions{})
	}
	var tot *eval.Totals
	for _, p := range rep.Policies {
		if p.Policy == "tofu" {
			tot = &p.Total
		}
	}
	if err == nil && tot == nil {
		err = errors.New("the tofu policy did not run")
	}
	if err != nil {
		return []bench.Row{bench.NotMeasured(name+": input tokens", tokAnchor, "≥ 40% fewer", err)}
	}
	set := fmt.Sprintf("%s (%d trajectories, %d calls", name, len(trajs), tot.Calls)
	if len(skipped) > 0 {
		set += fmt.Sprintf(", %d skipped", len(skipped))
	}
	set += ")"
	return []bench.Row{
		{Measure: set + ": input tokens as sent vs raw", Figure: fmt.Sprintf("−%.1f%%", 100*tot.Reduction()), Anchor: tokAnchor, Goal: "≥ 40% fewer"},
		{Measure: name + ": cache-weighted cost (uncached + 0.1 × cached)", Figure: fmt.Sprintf("−%.1f%%", 100*tot.CostCut()), Anchor: "—", Goal: "≥ 25% lower"},
		{Measure: name + ": calls naming or re-reading compacted content (misses)", Figure: fmt.Sprintf("%.1f%%", 100*tot.MissRate()), Anchor: "—", Goal: "≤ 5%"},
	}
}

// startupRows times `tofu version` and `tofu --help` against `pdftotext -v`.
func startupRows(ctx context.Context, c config) []bench.Row {
	var rows []bench.Row
	for _, args := range [][]string{{"version"}, {"--help"}} {
		measure := fmt.Sprintf("`tofu %s`, whole process", strings.Join(args, " "))
		p, err := timed(ctx, c.runs, append([]string{c.tofu}, args...), []string{"pdftotext", "-v"})
		if err != nil {
			rows = append(rows, bench.NotMeasured(measure, "`pdftotext -v`", "≤ 15 ms", err))
			continue
		}
		rows = append(rows, bench.Row{Measure: measure, Figure: fmt.Sprintf("%s; %.2f× pdftotext's CPU", ms(p.A), p.CPURatio), Anchor: "`pdftotext -v`: " + ms(p.B), Goal: "≤ 15 ms"})
	}
	return rows
}

// paperRows times `tofu paper extract` against `pdftotext -raw` per paper, and puts each
// paper's reading order beside pdftotext's (`tofu eval pdf`).
func paperRows(ctx context.Context, c config) []bench.Row {
	rep, err := eval.EvalPDF(ctx, c.papers, eval.PDFOptions{Runs: 1})
	if err != nil {
		return []bench.Row{bench.NotMeasured("paper extract", "pdftotext -raw", "at least as fast", err)}
	}
	var rows []bench.Row
	for _, p := range rep.Papers {
		pdf := filepath.Join(c.papers, p.ID, "paper.pdf")
		measure := fmt.Sprintf("`tofu paper extract` %s (%d pages), whole process", p.ID, p.Pages)
		pair, err := timed(ctx, c.runs, []string{c.tofu, "paper", "extract", pdf}, []string{"pdftotext", "-raw", pdf, "-"})
		if err != nil {
			rows = append(rows, bench.NotMeasured(measure, "pdftotext -raw", "at least as fast", err))
		} else {
			rows = append(rows, bench.Row{Measure: measure, Figure: fmt.Sprintf("%s; %.2f× pdftotext's wall, %.2f× its CPU", ms(pair.A), pair.Ratio, pair.CPURatio), Anchor: "pdftotext -raw: " + ms(pair.B), Goal: "≤ 1.00× (wall)"})
		}
		rows = append(rows, bench.Row{Measure: "reading order " + p.ID, Figure: fmt.Sprintf("%.3f", p.Tofu.Order), Anchor: fmt.Sprintf("pdftotext: %.3f", p.Pdftotext.Order), Goal: "≥ pdftotext"})
	}
	return rows
}

func timed(ctx context.Context, runs int, a, b []string) (bench.Pair, error) {
	if _, err := os.Stat(a[0]); err != nil {
		return bench.Pair{}, err
	}
	return bench.Compare(ctx, runs, a, b)
}

func ms(t bench.Timing) string {
	return fmt.Sprintf("%.1f ms (CPU %.1f ms)", float64(t.Wall)/1e6, float64(t.CPU)/1e6)
}

var (
	firstPaint = regexp.MustCompile(`first paint:\s+(\d+) ms`)
	idlePSS    = regexp.MustCompile(`PSS (\d+) MB`)
)

// windowRows runs the window smoke test (Xvfb) on `tofu`, which becomes the window program
// beside it, and reads its figures.
func windowRows(ctx context.Context, c config) []bench.Row {
	const paintM, memM = "window: cold start to first paint", "window: idle memory, all processes (PSS)"
	fail := func(err error) []bench.Row {
		return []bench.Row{bench.NotMeasured(paintM, "—", "≤ 1 s", err), bench.NotMeasured(memM, "Electron chat apps: several hundred MB", "≤ 250 MB", err)}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(c.tofu), "tofu-window")); err != nil {
		return fail(err)
	}
	out, err := exec.CommandContext(ctx, ".ci/window-smoke.sh", c.tofu).CombinedOutput()
	paint, mem := firstPaint.FindSubmatch(out), idlePSS.FindSubmatch(out)
	// Figures printed after "ok" stand even if the script's clean-up then failed.
	if err != nil && (paint == nil || mem == nil || !bytes.Contains(out, []byte("window-smoke: ok"))) {
		return fail(fmt.Errorf("window smoke test: %w: %s", err, lastLine(out)))
	}
	if paint == nil || mem == nil {
		return fail(fmt.Errorf("window smoke test printed no figures: %s", lastLine(out)))
	}
	return []bench.Row{
		{Measure: paintM, Figure: string(paint[1]) + " ms", Anchor: "—", Goal: "≤ 1 s"},
		{Measure: memM, Figure: string(mem[1]) + " MB", Anchor: "Electron chat apps: several hundred MB", Goal: "≤ 250 MB"},
	}
}

func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// agentStepRow runs backend/agent's step benchmark: the harness's own cost of one step at
// 200 messages, the model answering at once.
func agentStepRow(ctx context.Context) bench.Row {
	const measure = "one agent step at 200 messages (harness only)"
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "^BenchmarkStepAt200Messages$", "-benchtime", "100x", "./backend/agent/")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return bench.NotMeasured(measure, "—", "—", fmt.Errorf("%w: %s", err, lastLine(out)))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkStepAt200Messages") {
			continue
		}
		fig := ""
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				fig = fmt.Sprintf("%.2f ms", v/1e6)
			case "cpu-ns/op":
				fig += fmt.Sprintf(" (CPU %.2f ms)", v/1e6)
			case "writes/op":
				fig += fmt.Sprintf(", log writes: %.0f", v)
			}
		}
		return bench.Row{Measure: measure, Figure: fig, Anchor: "—", Goal: "—"}
	}
	return bench.NotMeasured(measure, "—", "—", errors.New("the benchmark printed no result"))
}
