package eval

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadTasksReadsSWEBenchFields(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.jsonl")
	lines := []string{
		"# a comment, then a SWE-bench record (FAIL_TO_PASS as the text of a JSON list)",
		`{"instance_id":"x__y-1","repo":"mirrors/y","base_commit":"abc","problem_statement":"p","test_patch":"diff","FAIL_TO_PASS":"[\"t::a\", \"t::b\"]","PASS_TO_PASS":"[]","version":"1.0"}`,
		"",
		`{"instance_id":"z-2","repo":"/abs/z","base_commit":"def","problem_statement":"q","FAIL_TO_PASS":["a"],"test_cmd":"pytest {test}"}`,
	}
	if err := os.WriteFile(suite, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	tasks, err := LoadTasks(suite)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 {
		t.Fatalf("%d tasks", len(tasks))
	}
	if got := []string(tasks[0].FailToPass); !reflect.DeepEqual(got, []string{"t::a", "t::b"}) || len(tasks[0].PassToPass) != 0 {
		t.Fatalf("tests %q %q", got, tasks[0].PassToPass)
	}
	if tasks[0].Repo != "mirrors/y" || tasks[1].Repo != "/abs/z" || tasks[1].TestCmd != "pytest {test}" {
		t.Fatalf("repos %q %q", tasks[0].Repo, tasks[1].Repo)
	}
}

func TestLoadTasksRefusesBadSuites(t *testing.T) {
	for name, line := range map[string]string{
		"no tests": `{"instance_id":"a","repo":"r","base_commit":"c","problem_statement":"p"}`,
		"no base":  `{"instance_id":"a","repo":"r","problem_statement":"p","FAIL_TO_PASS":["t"]}`,
		"twice":    `{"instance_id":"a","repo":"r","base_commit":"c","problem_statement":"p","FAIL_TO_PASS":["t"]}` + "\n" + `{"instance_id":"a","repo":"r","base_commit":"c","problem_statement":"p","FAIL_TO_PASS":["t"]}`,
		"bad list": `{"instance_id":"a","repo":"r","base_commit":"c","problem_statement":"p","FAIL_TO_PASS":"t"}`,
		"not json": `{instance_id`,
	} {
		suite := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(suite, []byte(line), 0o644)
		if _, err := LoadTasks(suite); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

func TestShellQuoteKeepsTestIDsWhole(t *testing.T) {
	out, err := runTest(t.Context(), `printf '%s|' {test}`, "t.py::test[a b'c]", t.TempDir(), 10e9, nil)
	if err != nil || out != "t.py::test[a b'c]|" {
		t.Fatalf("%q %v", out, err)
	}
}
