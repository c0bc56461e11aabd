package bench

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Row is one figure of the table beside its anchor and the goal it is held to.
type Row struct {
	Measure string
	Figure  string
	Anchor  string
	Goal    string
}

// NotMeasured is a row whose figure could not be taken, saying why: the table keeps every
// row, so a missing figure shows instead of vanishing.
func NotMeasured(measure, anchor, goal string, err error) Row {
	return Row{Measure: measure, Figure: "not measured: " + oneLine(err.Error()), Anchor: anchor, Goal: goal}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// Markdown renders the rows as a Markdown table.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| measure | Tofu | anchor | goal |\n|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(r.Measure), cell(r.Figure), cell(r.Anchor), cell(r.Goal))
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Machine describes where the figures were taken: processor, cores, memory and the load at
// the start (the machines are shared: a high load slows every wall-clock figure).
func Machine() string {
	cpu := runtime.GOARCH
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	desc := fmt.Sprintf("%s, %d cores, %s/%s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(data), "MemTotal: %d kB", &kb); err == nil {
			desc += fmt.Sprintf(", %d GiB", (kb+(1<<19))>>20)
		}
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) >= 3 {
			desc += fmt.Sprintf(", load average %s %s %s at the start", f[0], f[1], f[2])
		}
	}
	return desc
}

// Doc markers delimit the generated part of docs/PERFORMANCE.md.
const (
	docBegin = "<!-- bench:begin (make bench writes from here) -->"
	docEnd   = "<!-- bench:end -->"
)

// ReplaceInDoc returns doc with the text between its markers replaced by section; a doc
// without both markers is an error (the page is written by hand around them).
func ReplaceInDoc(doc []byte, section string) ([]byte, error) {
	i := bytes.Index(doc, []byte(docBegin))
	j := bytes.Index(doc, []byte(docEnd))
	if i < 0 || j < i {
		return nil, fmt.Errorf("the page has no %q ... %q section", docBegin, docEnd)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(docBegin)])
	out.WriteString("\n" + strings.TrimSpace(section) + "\n")
	out.Write(doc[j:])
	return out.Bytes(), nil
}
