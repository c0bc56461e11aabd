package toolset

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
)

// TestCorrections: what a model reads back for malformed calls to the real tools.
func TestCorrections(t *testing.T) {
	t.Parallel()
	ts := New(Options{})
	defer ts.Close()
	ws := t.TempDir()
	cases := []struct{ name, args, want string }{
		{"edit_files", `{"edits":[{"path":"a.go","old_string":"x"}]}`,
			"Invalid arguments for edit_files:\n- edits[0].new_string: missing required field (string)\n" +
				`Fix them and call edit_files again, e.g. {"edits":[{"path":"main.go","old_string":"x := 1","new_string":"x := 2"}]}.`},
		{"edit_files", `{"edits":[{"file":"a.go","old":"x","new":"y","replace_all":"yes please"}]}`,
			"Invalid arguments for edit_files:\n- edits[0].replace_all: expected boolean (true or false), got string \"yes please\"\n" +
				`Fix them and call edit_files again, e.g. {"edits":[{"path":"main.go","old_string":"x := 1","new_string":"x := 2"}]}.`},
		{"run_command", `{"command":"ls","timeout":"two minutes"}`,
			"Invalid arguments for run_command:\n- timeout: expected integer, got string \"two minutes\"\n" +
				`Fix them and call run_command again, e.g. {"command":"go test ./...","timeout":300}.`},
		{"run_command", `{"command": "ls", "timeout": 30`,
			"Invalid arguments for run_command:\n- arguments are not valid JSON: it ends early (cut off or a missing closing quote/brace). Send exactly one JSON object\n" +
				`Fix them and call run_command again, e.g. {"command":"go test ./...","timeout":300}.`},
		{"grep", `{"searches":[{"patern":"TODO"}]}`,
			"Invalid arguments for grep:\n- searches[0].pattern: missing required field (string)\n- searches[0].patern: unknown field (did you mean \"pattern\"?)\n" +
				`Fix them and call grep again, e.g. {"searches":[{"pattern":"func main","glob":"*.go"},{"pattern":"TODO","path":"docs"}]}.`},
		{"find_files", `{"pattern":"*.go","sort":"newest"}`,
			"Invalid arguments for find_files:\n- sort: must be one of path, mtime, got \"newest\"\n" +
				`Fix them and call find_files again, e.g. {"pattern":"**/*_test.go","sort":"mtime"}.`},
		{"read_files", `[{"path":"a.go"}]`,
			"Invalid arguments for read_files:\n- arguments must be a JSON object, got array\n" +
				`Fix them and call read_files again, e.g. {"reads":[{"path":"main.go"},{"path":"util.go","start":40,"end":80}]}.`},
		{"bash", `{"command":"ls"}`,
			`Unknown tool "bash": use run_command {"command":"…"}; the tools are read_files, grep, find_files, edit_files, write_file, run_command, job_output, job_kill, tool_search.`},
		{"Read", `{"file_path":"a.go"}`,
			`Unknown tool "Read": use read_files {"reads":[{"path":"…","start":1,"end":200}]} (several files in one call); the tools are read_files, grep, find_files, edit_files, write_file, run_command, job_output, job_kill, tool_search.`},
		{"str_replace_editor", `{"command":"view","path":"a.go"}`,
			`Unknown tool "str_replace_editor": use edit_files {"edits":[{"path":"…","old_string":"…","new_string":"…"}]}; view is read_files, create is write_file; the tools are read_files, grep, find_files, edit_files, write_file, run_command, job_output, job_kill, tool_search.`},
		{"Grep", `{"pattern":"x"}`,
			`Unknown tool "Grep": the tools are read_files, grep, find_files, edit_files, write_file, run_command, job_output, job_kill, tool_search (did you mean grep?).`},
		{"edit_file", `{}`,
			`Unknown tool "edit_file": use edit_files {"edits":[{"path":"…","old_string":"…","new_string":"…"}]}; the tools are read_files, grep, find_files, edit_files, write_file, run_command, job_output, job_kill, tool_search.`},
		{"edit_filez", `{}`,
			`Unknown tool "edit_filez": the tools are read_files, grep, find_files, edit_files, write_file, run_command, job_output, job_kill, tool_search (did you mean edit_files?).`},
	}
	for _, c := range cases {
		res, err := ts.Run(context.Background(), tools.Call{Name: c.name, Arguments: json.RawMessage(c.args), Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || res.Text != c.want {
			t.Errorf("%s %s:\ngot  %q\nwant %q", c.name, c.args, res.Text, c.want)
		}
	}
	// Forgiven: a single read at the top level, "3" for 3, a bare path string.
	for _, c := range []struct{ name, args string }{
		{"read_files", `{"path":"x.txt","start":"1"}`},
		{"read_files", `{"reads":"x.txt"}`},
		{"run_command", `{"cmd":"echo hi","timeout":"5"}`},
		{"grep", `{"pattern":"hi","path":"x.txt"}`},
	} {
		if err := writeX(ws); err != nil {
			t.Fatal(err)
		}
		res, err := ts.Run(context.Background(), tools.Call{Name: c.name, Arguments: json.RawMessage(c.args), Workspace: ws})
		if err != nil || res.IsError {
			t.Errorf("%s %s: %q %v", c.name, c.args, res.Text, err)
		}
	}
}
