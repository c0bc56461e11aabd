package app

import (
	"bufio"
	"encoding/json"
	"github.com/tofu-research/tofu/app/web"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

func newHTTP(t *testing.T) (*fixture, *httptest.Server, string) {
	t.Helper()
	f := newFixture(t)
	token := web.NewToken()
	static := fstest.MapFS{"index.html": {Data: []byte("<title>Tofu</title>")}}
	srv := web.NewServer(f.app.Services(), f.app.PaperHandler(), static, token)
	f.fan.Add(srv)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return f, ts, token
}

func call(t *testing.T, ts *httptest.Server, token, method string, args ...any) (int, map[string]json.RawMessage) {
	t.Helper()
	body, _ := json.Marshal(args)
	req, _ := http.NewRequest("POST", ts.URL+"/api/call/"+method, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("X-Tofu-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// The API needs the token in the X-Tofu-Token header; the page's own files need none (they
// hold nothing, and the page takes the token from the address's fragment).
func TestServerRequiresToken(t *testing.T) {
	t.Parallel()
	_, ts, token := newHTTP(t)
	for path, want := range map[string]int{"/": 200, "/index.html": 200, "/api/events": 401, "/api/call/SessionService.List": 401, "/api/paper/x.pdf": 401} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s without token: %d, want %d", path, resp.StatusCode, want)
		}
	}
	if code, _ := call(t, ts, "wrong", "SessionService.List"); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", code)
	}
	if code, _ := call(t, ts, token, "SessionService.List"); code != http.StatusOK {
		t.Errorf("the token in the header: %d", code)
	}
}

func TestServerCalls(t *testing.T) {
	t.Parallel()
	_, ts, token := newHTTP(t)
	code, out := call(t, ts, token, "SessionService.Create", "from http")
	var info store.SessionInfo
	if code != 200 || json.Unmarshal(out["result"], &info) != nil || info.Title != "from http" {
		t.Fatalf("Create: %d %s", code, out)
	}
	code, out = call(t, ts, token, "SessionService.List")
	var list []store.SessionInfo
	if code != 200 || json.Unmarshal(out["result"], &list) != nil || len(list) != 1 {
		t.Fatalf("List: %d %s", code, out)
	}
	for _, tc := range []struct {
		method string
		args   []any
		want   int
	}{
		{"SessionService.Nope", nil, 404},
		{"Nope.List", nil, 404},
		{"SessionService.announce", nil, 404},
		{"SessionService.Rename", []any{info.ID}, 400},
		{"SessionService.Rename", []any{info.ID, 42}, 400},
		{"SessionService.Rename", []any{"missing", "x"}, 404},
		{"ChatService.Send", []any{info.ID, "", scripted.DemoModelName}, 400},
	} {
		if code, out := call(t, ts, token, tc.method, tc.args...); code != tc.want || len(out["error"]) == 0 {
			t.Errorf("%s%v: %d %s, want %d with an error", tc.method, tc.args, code, out, tc.want)
		}
	}
}

func TestServerStreamsEvents(t *testing.T) {
	t.Parallel()
	f, ts, token := newHTTP(t)
	req, _ := http.NewRequest("GET", ts.URL+"/api/events", nil)
	req.Header.Set("X-Tofu-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Scan() // retry
	lines.Scan() // : connected

	info, _ := f.app.Sessions.Create("")
	if code, out := call(t, ts, token, "ChatService.Send", info.ID, "hello", scripted.DemoModelName); code != 200 {
		t.Fatalf("Send: %d %s", code, out)
	}
	var text strings.Builder
	var sawAssistant bool
	for lines.Scan() {
		line := lines.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		var msg struct {
			Topic string          `json:"topic"`
			Data  json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &msg); err != nil {
			t.Fatalf("bad SSE data %q: %v", line, err)
		}
		if msg.Topic != SessionTopic(info.ID) {
			continue
		}
		var sm struct {
			Kind  string      `json:"kind"`
			Text  string      `json:"text"`
			State string      `json:"state"`
			Event store.Event `json:"event"`
		}
		json.Unmarshal(msg.Data, &sm)
		switch {
		case sm.Kind == "delta":
			text.WriteString(sm.Text)
		case sm.Kind == "event" && sm.Event.Type == store.EventAssistant:
			sawAssistant = true
		}
		if sm.Kind == "stream" && sm.State == "ended" {
			break
		}
	}
	if text.String() != scripted.EchoText("hello") || !sawAssistant {
		t.Fatalf("streamed %q (assistant event seen: %v)", text.String(), sawAssistant)
	}
}

// A binary built without the front end says so, and how to build it, instead of listing the
// placeholder file of frontend/dist.
func TestServerSaysTheUIWasNotBuilt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv := web.NewServer(f.app.Services(), f.app.PaperHandler(), fstest.MapFS{".gitkeep": {}}, web.NewToken())
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	bufio.NewReader(resp.Body).WriteTo(&body)
	if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(body.String(), ".gitkeep") ||
		!strings.Contains(body.String(), "not built") || !strings.Contains(body.String(), "make frontend") {
		t.Fatalf("%d %q", resp.StatusCode, body.String())
	}
}

// The page's policy lets the inlined KaTeX font load (font-src fell back to default-src
// 'self', which blocks data: URLs).
func TestServerPolicyAllowsInlinedFonts(t *testing.T) {
	t.Parallel()
	_, ts, _ := newHTTP(t)
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var font string
	for _, d := range strings.Split(resp.Header.Get("Content-Security-Policy"), ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == "font-src" {
			font = d
		}
	}
	if !strings.Contains(font, "data:") || !strings.Contains(font, "'self'") {
		t.Fatalf("policy %q", resp.Header.Get("Content-Security-Policy"))
	}
}
