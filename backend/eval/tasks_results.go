package eval

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// RunConfig is the agent configuration a suite ran under: what an ablation varies (--compare
// shows it) and what shards of one run share (--merge checks it).
type RunConfig struct {
	Model      string  `json:"model"`
	Mode       string  `json:"mode"`
	Context    string  `json:"context,omitempty"`
	Approve    string  `json:"approve"`
	MaxSteps   int     `json:"max_steps"`
	MaxCost    float64 `json:"max_cost,omitempty"`
	MaxTimeSec float64 `json:"max_time_sec,omitempty"`
	TestCmd    string  `json:"test_cmd,omitempty"`
}

// RunInfo says what a report is a run of: the suite (by its content), the shard, the
// configuration.
type RunInfo struct {
	Suite       string    `json:"suite"`        // the suite file's name
	SuiteSHA256 string    `json:"suite_sha256"` // its content's
	SuiteTasks  int       `json:"suite_tasks"`  // tasks in the whole suite (all shards)
	Shard       string    `json:"shard,omitempty"`
	Shards      []string  `json:"shards,omitempty"` // a merged report's
	Config      RunConfig `json:"config"`
}

// SuiteDigest is the sha256 of a suite file, what tells two suites apart.
func SuiteDigest(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// ResultsPath is the results log beside a report: run.json → run.results.jsonl.
func ResultsPath(report string) string {
	return strings.TrimSuffix(report, filepath.Ext(report)) + ".results.jsonl"
}

// ResultsLog is the JSON-lines file a suite appends each finished task to (synced to disk
// before the next one is told), so a killed suite resumes where it stopped: a first line
// {"run": RunInfo}, then a TaskResult per line.
type ResultsLog struct {
	f *os.File
}

type resultsHeader struct {
	Run *RunInfo `json:"run"`
}

// OpenResults opens (or starts) the results log at path for the run info describes, and
// returns the results it already holds by instance id. A log of another suite, shard or
// configuration is refused, as is one that is not a results log; a torn last line (the
// process was killed while writing it) is cut off.
func OpenResults(path string, info RunInfo) (*ResultsLog, map[string]TaskResult, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	done, good, err := readResults(f, info)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	l := &ResultsLog{f: f}
	if good == 0 {
		if err := l.append(resultsHeader{Run: &info}); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return l, done, nil
}

// readResults reads a log: its results, and the length of its whole lines.
func readResults(r io.Reader, info RunInfo) (map[string]TaskResult, int64, error) {
	done := map[string]TaskResult{}
	br := bufio.NewReaderSize(r, 1<<20)
	var good int64
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return done, good, nil // a line without its newline was being written: cut off
		}
		if err != nil {
			return nil, 0, err
		}
		if n == 1 {
			var h resultsHeader
			if json.Unmarshal(line, &h) != nil || h.Run == nil {
				return nil, 0, errors.New("not a results log of tofu eval tasks (its first line is no {\"run\": …})")
			}
			if why := sameRun(*h.Run, info); why != "" {
				return nil, 0, fmt.Errorf("it holds a run of %s: choose another --out, or delete it to start over", why)
			}
		} else {
			var res TaskResult
			if err := json.Unmarshal(bytes.TrimSpace(line), &res); err != nil || res.InstanceID == "" {
				return nil, 0, fmt.Errorf("line %d is not a task's result", n)
			}
			done[res.InstanceID] = res
		}
		good += int64(len(line))
	}
}

// sameRun says how two runs differ for resuming ("" when one continues the other).
func sameRun(was, now RunInfo) string {
	switch {
	case was.SuiteSHA256 != now.SuiteSHA256:
		return fmt.Sprintf("another suite (%s, sha256 %.12s…, not %.12s…)", was.Suite, was.SuiteSHA256, now.SuiteSHA256)
	case was.Shard != now.Shard:
		return fmt.Sprintf("shard %q, not %q", was.Shard, now.Shard)
	case !reflect.DeepEqual(was.Config, now.Config):
		return "another configuration (" + configDiff(was.Config, now.Config) + ")"
	}
	return ""
}

// Append records a finished task, on disk before it returns.
func (l *ResultsLog) Append(r TaskResult) error { return l.append(r) }

func (l *ResultsLog) append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("results log: %w", err)
	}
	return l.f.Sync()
}

// Close closes the log.
func (l *ResultsLog) Close() error { return l.f.Close() }

// configDiff names the settings where a and b differ ("a → b").
func configDiff(a, b RunConfig) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := 0; i < va.NumField(); i++ {
		x, y := va.Field(i).Interface(), vb.Field(i).Interface()
		if x != y {
			name, _, _ := strings.Cut(va.Type().Field(i).Tag.Get("json"), ",")
			out = append(out, fmt.Sprintf("%s %v → %v", name, show(x), show(y)))
		}
	}
	if len(out) == 0 {
		return "the same configuration"
	}
	return strings.Join(out, ", ")
}

func show(v any) string {
	if s, ok := v.(string); ok && s == "" {
		return `""`
	}
	return fmt.Sprint(v)
}
