package eval

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestShardSplitsByInstanceID(t *testing.T) {
	var tasks []Task
	for _, id := range []string{"e", "a", "d", "b", "c"} {
		tasks = append(tasks, Task{InstanceID: id})
	}
	ids := func(ts []Task) (out []string) {
		for _, t := range ts {
			out = append(out, t.InstanceID)
		}
		return out
	}
	// Sorted: a b c d e; shard k of 2 takes every other one, in the suite's order.
	s0, s1 := Shard{0, 2}.Of(tasks), Shard{1, 2}.Of(tasks)
	if !reflect.DeepEqual(ids(s0), []string{"e", "a", "c"}) || !reflect.DeepEqual(ids(s1), []string{"d", "b"}) {
		t.Fatalf("shards %v %v", ids(s0), ids(s1))
	}
	if got := (Shard{0, 1}).Of(tasks); len(got) != 5 {
		t.Fatalf("the whole suite: %v", ids(got))
	}
	for _, bad := range []string{"2/2", "-1/2", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) passed", bad)
		}
	}
	if s, err := ParseShard("3/4"); err != nil || s != (Shard{3, 4}) || s.String() != "3/4" {
		t.Fatalf("%v %v", s, err)
	}
}

func TestResultsLogResumesAndRefusesAnotherRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.results.jsonl")
	info := RunInfo{Suite: "s.jsonl", SuiteSHA256: "abc", SuiteTasks: 3, Config: RunConfig{Model: "m", Mode: "chat", MaxSteps: 5}}
	l, done, err := OpenResults(path, info)
	if err != nil || len(done) != 0 {
		t.Fatal(done, err)
	}
	if err := l.Append(TaskResult{InstanceID: "a", Resolved: true, InputTokens: 7}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	// A kill while the second result was being written leaves half a line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"instance_id":"b","resol`)
	f.Close()
	l, done, err = OpenResults(path, info)
	if err != nil || len(done) != 1 || !done["a"].Resolved || done["a"].InputTokens != 7 {
		t.Fatal(done, err)
	}
	if err := l.Append(TaskResult{InstanceID: "b"}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	b, _ := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[2], `{"instance_id":"b",`) {
		t.Fatalf("the log:\n%s", b)
	}
	other := info
	other.Config.Model = "n"
	if _, _, err := OpenResults(path, other); err == nil || !strings.Contains(err.Error(), "model m → n") {
		t.Fatalf("another model: %v", err)
	}
	other = info
	other.SuiteSHA256 = "def"
	if _, _, err := OpenResults(path, other); err == nil || !strings.Contains(err.Error(), "another suite") {
		t.Fatalf("another suite: %v", err)
	}
	notLog := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(notLog, []byte("{\"instance_id\":\"a\"}\n"), 0o644)
	if _, _, err := OpenResults(notLog, info); err == nil {
		t.Fatal("a file that is not a results log was taken")
	}
}

func TestMergeReports(t *testing.T) {
	run := func(shard string) RunInfo {
		return RunInfo{Suite: "s", SuiteSHA256: "abc", SuiteTasks: 3, Shard: shard, Config: RunConfig{Model: "m", Mode: "chat"}}
	}
	a := TasksReport{Run: run("0/2"), Tasks: []TaskResult{{InstanceID: "c", Resolved: true, InputTokens: 10}, {InstanceID: "a", InputTokens: 5}}, Summary: TasksSummary{WallMS: 40}}
	b := TasksReport{Run: run("1/2"), Tasks: []TaskResult{{InstanceID: "b", Resolved: true, InputTokens: 1}}, Summary: TasksSummary{WallMS: 70}}
	m, err := MergeReports([]string{"a.json", "b.json"}, []TasksReport{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tasks) != 3 || m.Tasks[0].InstanceID != "a" || m.Tasks[2].InstanceID != "c" || m.Summary.Resolved != 2 ||
		m.Summary.InputTokens != 16 || m.Summary.WallMS != 70 || m.Run.Shard != "" || !reflect.DeepEqual(m.Run.Shards, []string{"0/2", "1/2"}) || m.Missing() != "" {
		t.Fatalf("merged %+v", m)
	}
	if got, _ := MergeReports([]string{"a.json"}, []TasksReport{a}); got.Missing() == "" {
		t.Fatal("a missing shard goes unsaid")
	}
	for name, c := range map[string]struct {
		reps []TasksReport
		want string
	}{
		"overlap":       {[]TasksReport{a, a}, "in both a.json and b.json"},
		"another suite": {[]TasksReport{a, {Run: RunInfo{Suite: "t", SuiteSHA256: "def", Shard: "1/2", Config: a.Run.Config}}}, "another suite"},
		"another model": {[]TasksReport{a, {Run: RunInfo{Suite: "s", SuiteSHA256: "abc", Shard: "1/2", Config: RunConfig{Model: "n", Mode: "chat"}}}}, "model m → n"},
		"another split": {[]TasksReport{a, {Run: RunInfo{Suite: "s", SuiteSHA256: "abc", Shard: "1/3", Config: a.Run.Config}}}, "split two ways"},
	} {
		if _, err := MergeReports([]string{"a.json", "b.json"}, c.reps); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCompareStatistics(t *testing.T) {
	// 5 flips all one way: p = 2 × (½)^5.
	if p := SignTest(5, 0); math.Abs(p-0.0625) > 1e-12 {
		t.Fatalf("p %v", p)
	}
	if p := SignTest(3, 3); p != 1 {
		t.Fatalf("p %v", p)
	}
	if p := SignTest(0, 0); p != 1 {
		t.Fatalf("p %v", p)
	}
	// 1 flip of 10 with 9 one way: 2 × (1 + 10) / 1024.
	if p := SignTest(9, 1); math.Abs(p-22.0/1024) > 1e-12 {
		t.Fatalf("p %v", p)
	}
	mean, lo, hi := BootstrapCI([]float64{-100, -80, -120, -90, -110})
	if mean != -100 || lo < -120 || hi > -80 || lo >= mean || hi <= mean {
		t.Fatalf("ci %v [%v, %v]", mean, lo, hi)
	}
	if m2, lo2, hi2 := BootstrapCI([]float64{-100, -80, -120, -90, -110}); m2 != mean || lo2 != lo || hi2 != hi {
		t.Fatal("the bootstrap is not repeatable")
	}

	cfg := RunConfig{Model: "m", Mode: "chat", Context: "tofu"}
	a := TasksReport{Run: RunInfo{Suite: "s", SuiteSHA256: "x", Config: cfg}, Tasks: []TaskResult{
		{InstanceID: "t1", Resolved: false, InputTokens: 1000, Steps: 5, WallMS: 1000},
		{InstanceID: "t2", Resolved: true, InputTokens: 2000, Steps: 4, WallMS: 2000},
		{InstanceID: "t3", Resolved: true, InputTokens: 500, Steps: 2},
	}}
	cfg.Context = "off"
	b := TasksReport{Run: RunInfo{Suite: "s", SuiteSHA256: "x", Config: cfg}, Tasks: []TaskResult{
		{InstanceID: "t2", Resolved: false, InputTokens: 2600, Steps: 6, WallMS: 2500},
		{InstanceID: "t1", Resolved: true, InputTokens: 1400, Steps: 5, WallMS: 1000},
		{InstanceID: "t4", Resolved: true},
	}}
	c, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if g, l := c.Flips(); g != 1 || l != 1 || len(c.Pairs) != 2 || !reflect.DeepEqual(c.OnlyA, []string{"t3"}) || !reflect.DeepEqual(c.OnlyB, []string{"t4"}) {
		t.Fatalf("%+v", c)
	}
	var out bytes.Buffer
	if err := c.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"context tofu → off", "t1", "+400", "+600", "total (2 tasks)", "+1000", "gains 1 and loses 1", "p = 1", "95% bootstrap CI", "mean Δ +500 [400, 600]", "A [t3], B [t4]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
	b.Run.SuiteSHA256 = "y"
	if _, err := Compare(a, b); err == nil {
		t.Fatal("two suites compared")
	}
}

func TestResolveReposFindsMirrors(t *testing.T) {
	root := t.TempDir()
	bare := func(p string) {
		if out, err := exec.Command("git", "init", "-q", "--bare", p).CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	bare(filepath.Join(root, "mirrors", "psf+requests", "repo")) // the fetch tool's layout
	bare(filepath.Join(root, "mirrors", "pallets", "click.git"))
	bare(filepath.Join(root, "local"))
	tasks := []Task{
		{InstanceID: "1", Repo: "psf/requests"},
		{InstanceID: "2", Repo: "pallets/click", TestCmd: "own"},
		{InstanceID: "3", Repo: "local"},
	}
	err := ResolveRepos(tasks, RepoOptions{SuiteDir: root, Mirrors: filepath.Join(root, "mirrors"),
		TestCmds: map[string]string{"psf/requests": "pytest {test}", "pallets/click": "not this"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "mirrors/psf+requests/repo"), filepath.Join(root, "mirrors/pallets/click.git"), filepath.Join(root, "local")}
	for i, w := range want {
		if tasks[i].Repo != w {
			t.Errorf("task %d: %s, want %s", i, tasks[i].Repo, w)
		}
	}
	if tasks[0].TestCmd != "pytest {test}" || tasks[1].TestCmd != "own" {
		t.Fatalf("test commands %q %q", tasks[0].TestCmd, tasks[1].TestCmd)
	}
	err = ResolveRepos([]Task{{InstanceID: "x", Repo: "nobody/nothing"}}, RepoOptions{SuiteDir: root})
	if err == nil || !strings.Contains(err.Error(), "--repos") {
		t.Fatalf("%v", err)
	}
}
