package scripted

import (
	"net/http"
	"strings"
	"testing"
)

func TestLoadScriptFile(t *testing.T) {
	t.Parallel()
	sc, err := LoadScriptFile("testdata/faults.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(t).Load(sc)
	chat := func(msgs string) (int, string, http.Header) {
		t.Helper()
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"scripted","stream":false,"messages":`+msgs+`}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String(), resp.Header
	}
	tests := []struct {
		name, msgs string
		status     int
		contains   string
	}{
		{"fault first", `[{"role":"user","content":"flaky?"}]`, 429, "rate_limit"},
		{"then text", `[{"role":"user","content":"flaky?"}]`, 200, "Second try works."},
		{"tool call", `[{"role":"user","content":"read go.mod"}]`, 200, `"name":"read_file"`},
		{"after tool", `[{"role":"user","content":"read go.mod"},{"role":"tool","tool_call_id":"call_1","content":"module tofu"}]`, 200, "The module is tofu."},
		{"default", `[{"role":"user","content":"hi"}]`, 200, "I only know the script."},
	}
	for _, tt := range tests { // in order: the first rule is used once
		status, body, h := chat(tt.msgs)
		if status != tt.status || !strings.Contains(body, tt.contains) {
			t.Errorf("%s: %d %s", tt.name, status, body)
		}
		if status == 429 && h.Get("Retry-After") != "2" {
			t.Errorf("Retry-After %q", h.Get("Retry-After"))
		}
	}
	if cs := srv.Chats(); len(cs) != 5 || cs[0].Format != "openai" {
		t.Errorf("calls %+v", cs)
	}
}

func TestLoadScriptErrors(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		`[{"match":{},"reply":{"fault":"explode"}}]`,
		`[{"match":{"user_contain":"x"},"reply":{}}]`,
		`[{"match":{},"reply":{"token_delay":"soon"}}]`,
		`{"rules":`,
	} {
		if _, err := LoadScript(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	sc, err := LoadScript(strings.NewReader(`[{"match":{"user_contains":"x"},"reply":{"text":"y","token_delay":30},"times":2}]`))
	if err != nil || len(sc.Rules) != 1 || sc.Rules[0].Times != 2 || sc.Rules[0].Reply.toReply().TokenDelay.Milliseconds() != 30 {
		t.Errorf("%+v %v", sc, err)
	}
}

func TestScriptToolResultCaptures(t *testing.T) {
	t.Parallel()
	sc, err := LoadScript(strings.NewReader(`[
		{"match":{"tool_result":"\\[(?P<ref>e\\d+) textbox \"What needs to be done\\?\""},
		 "reply":{"text":"typing into ${ref}","tool_calls":[{"id":"c2","name":"browser_act","arguments":{"actions":[{"do":"type","ref":"${ref}","text":"say \"${1}\""}]}}]}},
		{"match":{"after_tool":true},"reply":{"text":"no textbox"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(t, DemoModel()).Load(sc)
	post := func(tool string) string {
		t.Helper()
		body := `{"model":"` + DemoModelName + `","stream":false,"messages":[{"role":"user","content":"go"},{"role":"tool","tool_call_id":"c1","content":` + tool + `}]}`
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return b.String()
	}
	got := post(`"# todos\n[e7 textbox \"What needs to be done?\" focused]"`)
	for _, want := range []string{"typing into e7", `\"ref\":\"e7\"`, `say \\\"e7\\\"`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s missing from %s", want, got)
		}
	}
	if got := post(`"nothing here"`); !strings.Contains(got, "no textbox") {
		t.Errorf("a result without the textbox: %s", got)
	}
	if _, err := LoadScript(strings.NewReader(`[{"match":{"tool_result":"("},"reply":{}}]`)); err == nil {
		t.Error("a bad regular expression was accepted")
	}
}
