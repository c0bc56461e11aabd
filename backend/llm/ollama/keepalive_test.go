package ollama

import (
	"encoding/json"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// Which keep_alive goes to which server: the user's setting first, then OLLAMA_KEEP_ALIVE, then
// 30 minutes to a server on this machine, and nothing to a remote one (its memory is not the
// user's to hold).
func TestKeepAliveFor(t *testing.T) {
	for _, tc := range []struct{ host, setting, env, want string }{
		{"127.0.0.1", "", "", DefaultKeepAlive},
		{"localhost", "", "", DefaultKeepAlive},
		{"::1", "", "", DefaultKeepAlive},
		{"0.0.0.0", "", "", DefaultKeepAlive},
		{"gpu-box.lan", "", "", ""},
		{"ollama.com", "", "", ""},
		{"127.0.0.1", "2h", "", "2h0m0s"},
		{"127.0.0.1", "-1", "", "-1s"},
		{"127.0.0.1", "0", "10m", "0s"}, // the user asked to unload at once
		{"127.0.0.1", "", "600", "10m0s"},
		{"gpu-box.lan", "", "1h", "1h0m0s"},
		{"gpu-box.lan", "15m", "1h", "15m0s"},
		{"127.0.0.1", "", "soon", DefaultKeepAlive}, // Ollama ignores it too
	} {
		if got := keepAliveFor(tc.host, tc.setting, tc.env); got != tc.want {
			t.Errorf("keepAliveFor(%q, %q, %q) = %q, want %q", tc.host, tc.setting, tc.env, got, tc.want)
		}
	}
	for _, bad := range []string{"soon", "5 minutes", "1.5"} {
		if err := CheckKeepAlive(bad); err == nil {
			t.Errorf("CheckKeepAlive(%q) accepted it", bad)
		}
	}
	for _, good := range []string{"", "30m", "-1", "0", "3600", "1h30m"} {
		if err := CheckKeepAlive(good); err != nil {
			t.Errorf("CheckKeepAlive(%q): %v", good, err)
		}
	}
}

// Every chat to the local (scripted) server carries the keep_alive, the same on every request
// (Ollama reloads nothing for it), and the trace's params make the same bytes again.
func TestChatsCarryKeepAlive(t *testing.T) {
	t.Setenv("OLLAMA_KEEP_ALIVE", "")
	for _, tc := range []struct {
		opts []Option
		want string // the JSON value sent
	}{
		{nil, `"30m0s"`},
		{[]Option{WithKeepAlive("-1")}, `-1`},
		{[]Option{WithKeepAlive("0")}, `"0s"`},
	} {
		srv := scripted.New(t, scripted.Model{Name: "m:latest", ContextLength: 8192})
		srv.Default(scripted.Reply{Text: "ok"})
		p := New(srv.URL, tc.opts...)
		for _, msg := range []string{"first", "second"} {
			req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: msg}}}
			for _, err := range p.Stream(t.Context(), req) {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		for i, c := range srv.Chats() {
			var body struct {
				KeepAlive json.RawMessage `json:"keep_alive"`
			}
			if err := json.Unmarshal(c.Body, &body); err != nil {
				t.Fatal(err)
			}
			if string(body.KeepAlive) != tc.want {
				t.Errorf("chat %d: keep_alive %s, want %s (body %s)", i, body.KeepAlive, tc.want, c.Body)
			}
		}
		params, _ := json.Marshal(Params{Window: 8192, KeepAlive: p.sentKeepAlive()})
		again, err := Encode(llm.Request{Model: "m:latest", Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}}, params)
		if err != nil {
			t.Fatal(err)
		}
		var enc struct {
			KeepAlive json.RawMessage `json:"keep_alive"`
		}
		json.Unmarshal(again, &enc)
		if string(enc.KeepAlive) != tc.want {
			t.Errorf("Encode: keep_alive %s, want %s", enc.KeepAlive, tc.want)
		}
	}
}
