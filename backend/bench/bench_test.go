package bench

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Real processes: a shell that does more work is the slower of the pair, by CPU time (wall
// clock is not asserted on; a loaded machine may stall either).
func TestCompareRealProcesses(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	busy := []string{sh, "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"}
	idle := []string{sh, "-c", "exit 0"}
	p, err := Compare(context.Background(), 3, busy, idle)
	if err != nil {
		t.Fatal(err)
	}
	if p.A.CPU <= p.B.CPU || p.A.Wall <= 0 || p.B.Wall <= 0 || p.Ratio <= 0 || p.CPURatio <= 1 {
		t.Errorf("busy %+v vs idle %+v, ratio %.2f", p.A, p.B, p.Ratio)
	}
	if _, err := Compare(context.Background(), 1, []string{sh, "-c", "echo broken >&2; exit 3"}, idle); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a failing command: %v", err)
	}
}

func TestMedian(t *testing.T) {
	if got := medianFloat([]float64{5, 1, 3}); got != 3 {
		t.Errorf("odd: %v", got)
	}
	if got := medianFloat([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("even: %v", got)
	}
}

func TestMarkdownAndDoc(t *testing.T) {
	rows := []Row{{Measure: "a | b", Figure: "1 ms", Anchor: "2 ms", Goal: "≤ 1"}, NotMeasured("window", "—", "≤ 1 s", errors.New("no\nbinary"))}
	md := Markdown(rows)
	for _, want := range []string{"| measure | Tofu | anchor | goal |", "| a \\| b | 1 ms | 2 ms | ≤ 1 |", "| window | not measured: no binary | — | ≤ 1 s |"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	doc := []byte("# Performance\nintro\n" + docBegin + "\nold table\n" + docEnd + "\nafter\n")
	got, err := ReplaceInDoc(doc, md)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(got); strings.Contains(s, "old table") || !strings.Contains(s, "| window |") || !strings.HasSuffix(s, docEnd+"\nafter\n") || !strings.HasPrefix(s, "# Performance\nintro\n") {
		t.Errorf("replaced:\n%s", s)
	}
	if _, err := ReplaceInDoc([]byte("no markers"), md); err == nil {
		t.Error("a page without markers was accepted")
	}
	if m := Machine(); !strings.Contains(m, "cores") {
		t.Errorf("machine %q", m)
	}
}
