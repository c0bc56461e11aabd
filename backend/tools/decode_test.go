package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type testEntry struct {
	Path  string `json:"path" alias:"file_path"`
	Start int    `json:"start,omitempty"`
}

type testParams struct {
	Reads []testEntry `json:"reads"`
	Mode  string      `json:"mode,omitempty" enum:"fast,slow"`
	Deep  bool        `json:"deep,omitempty"`
	Note  string      `json:"note,omitempty"`
}

const testExample = `{"reads":[{"path":"a.go"}]}`

func TestDecodeForgiving(t *testing.T) {
	t.Parallel()
	want := testParams{Reads: []testEntry{{Path: "a.go", Start: 3}}}
	cases := map[string]string{
		"plain":                 `{"reads":[{"path":"a.go","start":3}]}`,
		"string for int":        `{"reads":[{"path":"a.go","start":"3"}]}`,
		"float for int":         `{"reads":[{"path":"a.go","start":3.0}]}`,
		"object for list":       `{"reads":{"path":"a.go","start":3}}`,
		"list as JSON string":   `{"reads":"[{\"path\":\"a.go\",\"start\":3}]"}`,
		"args as JSON string":   `"{\"reads\":[{\"path\":\"a.go\",\"start\":3}]}"`,
		"item at top level":     `{"path":"a.go","start":3}`,
		"alias":                 `{"reads":[{"file_path":"a.go","start":3}]}`,
		"camel case":            `{"Reads":[{"Path":"a.go","start":3}]}`,
		"fenced":                "```json\n{\"reads\":[{\"path\":\"a.go\",\"start\":3}]}\n```",
		"unknown field is fine": `{"reads":[{"path":"a.go","start":3,"why":"x"}]}`,
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Decode[testParams]("t", json.RawMessage(raw), testExample)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
	got, err := Decode[testParams]("t", json.RawMessage(`{"reads":["a.go","b.go"],"deep":"true","note":42}`), "")
	if err != nil || len(got.Reads) != 2 || got.Reads[1].Path != "b.go" || !got.Deep || got.Note != "42" {
		t.Errorf("strings for objects, bool and string coercion: %+v %v", got, err)
	}
	if _, err := Decode[testParams]("t", nil, ""); err == nil || !strings.Contains(err.Error(), "reads: missing") {
		t.Errorf("empty arguments: %v", err)
	}
}

func TestDecodeCorrections(t *testing.T) {
	t.Parallel()
	tail := "Fix them and call t again, e.g. " + testExample + "."
	cases := []struct{ name, raw, want string }{
		{"broken JSON", `{"reads": [{"path": "a.go"}`,
			"- arguments are not valid JSON: it ends early (cut off or a missing closing quote/brace). Send exactly one JSON object"},
		{"bad token", `{"reads": [{"path": a.go}]}`,
			"- arguments are not valid JSON: invalid character 'a' looking for beginning of value at byte 21, near `{\"reads\": [{\"path\": a.go}]}`. Send exactly one JSON object"},
		{"not an object", `[1,2]`, "- arguments must be a JSON object, got array"},
		{"double-encoded, broken inside", `"{\"reads\": [{\"path\": \"a.go\"}"`,
			"- arguments are a JSON string holding invalid JSON: it ends early (cut off or a missing closing quote/brace). Send exactly one JSON object, not a string"},
		{"double-encoded, bad token", `"{\"reads\": [{\"path\": a.go}]}"`,
			"- arguments are a JSON string holding invalid JSON: invalid character 'a' looking for beginning of value at byte 21, near `{\"reads\": [{\"path\": a.go}]}`. Send exactly one JSON object, not a string"},
		{"a plain string", `"a.go please"`, "- arguments must be a JSON object, got string \"a.go please\""},
		{"missing field", `{}`, "- reads: missing required field (array of objects)"},
		{"missing nested", `{"reads":[{"start":1}]}`, "- reads[0].path: missing required field (string)"},
		{"wrong type", `{"reads":[{"path":"a","start":"ten"}]}`, "- reads[0].start: expected integer, got string \"ten\""},
		{"fraction", `{"reads":[{"path":"a","start":1.5}]}`, "- reads[0].start: expected integer, got number 1.5"},
		{"bad bool", `{"reads":[{"path":"a"}],"deep":"maybe"}`, "- deep: expected boolean (true or false), got string \"maybe\""},
		{"enum", `{"reads":[{"path":"a"}],"mode":"warp"}`, "- mode: must be one of fast, slow, got \"warp\""},
		{"typo named", `{"reads":[{"pth":"a"}]}`,
			"- reads[0].path: missing required field (string)\n- reads[0].pth: unknown field (did you mean \"path\"?)"},
		{"object for string", `{"reads":[{"path":{"a":1}}]}`, "- reads[0].path: expected string, got object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode[testParams]("t", json.RawMessage(c.raw), testExample)
			if err == nil {
				t.Fatal("accepted")
			}
			want := "Invalid arguments for t:\n" + c.want + "\n" + tail
			if got := err.Error(); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	ran := false
	tool := Define(Def[testParams]{
		Name: "read_files", Description: "  Read.\n", ReadOnly: true, Example: testExample,
		Run: func(_ context.Context, c Call, p testParams) (Result, error) {
			ran = true
			return Result{Text: c.Workspace + ":" + p.Reads[0].Path}, nil
		},
		Access: func(_ Call, p testParams) []Access {
			return []Access{{Kind: AccessRead, Path: p.Reads[0].Path}}
		},
	})
	boom := Define(Def[struct{}]{Name: "boom", Run: func(context.Context, Call, struct{}) (Result, error) { panic("x") }})
	r := NewRegistry(tool, boom)
	if err := r.Add(tool); err == nil {
		t.Error("duplicate accepted")
	}
	specs := r.Specs()
	if len(specs) != 2 || specs[0].Description != "Read." ||
		string(specs[0].Parameters) != `{"type":"object","properties":{"reads":{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"start":{"type":"integer"}},"required":["path"]}},"mode":{"type":"string","enum":["fast","slow"]},"deep":{"type":"boolean"},"note":{"type":"string"}},"required":["reads"]}` {
		t.Errorf("specs: %+v %s", specs, specs[0].Parameters)
	}
	ctx := context.Background()
	res, err := r.Run(ctx, Call{Name: "read_files", Arguments: json.RawMessage(`{"path":"x"}`), Workspace: "/w"})
	if err != nil || res.Text != "/w:x" || !ran {
		t.Errorf("run: %+v %v", res, err)
	}
	acc, aerr := r.Access(Call{Name: "read_files", Arguments: json.RawMessage(`{"reads":[{"path":"y"}]}`)})
	if aerr != nil || len(acc) != 1 || acc[0].Path != "y" {
		t.Errorf("access: %v %v", acc, aerr)
	}
	if _, aerr := r.Access(Call{Name: "read_files", Arguments: json.RawMessage(`{`)}); aerr == nil {
		t.Error("access of broken arguments accepted")
	}
	res, err = r.Run(ctx, Call{Name: "read_filez", Arguments: json.RawMessage(`{}`)})
	if err != nil || !res.IsError || res.Text != `Unknown tool "read_filez": the tools are read_files, boom (did you mean read_files?).` {
		t.Errorf("unknown tool: %q %v", res.Text, err)
	}
	if _, err := r.Run(ctx, Call{Name: "boom"}); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("panic: %v", err)
	}
	if !r.ReadOnly("read_files") || r.ReadOnly("boom") {
		t.Error("ReadOnly")
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	if got := AbsPath("/w", "a/../b"); got != "/w/b" {
		t.Error(got)
	}
	if got := AbsPath("/w", "/etc/x"); got != "/etc/x" {
		t.Error(got)
	}
	if !Within("/w", "/w") || !Within("/w", "/w/a") || Within("/w", "/wx") || Within("/w", "/") {
		t.Error("Within")
	}
	if Rel("/w", "/w/a/b") != "a/b" || Rel("/w", "/x") != "/x" {
		t.Error("Rel")
	}
}
