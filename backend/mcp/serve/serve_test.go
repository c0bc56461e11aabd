package serve

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/mcp"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// waitState waits for the named server of m to leave "connecting".
func waitState(t *testing.T, m *mcp.Manager, name string) mcp.State {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.WaitFor(ctx, name); err != nil {
		t.Fatal(err)
	}
	for _, s := range m.States() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %s", name)
	return mcp.State{}
}

// TestHTTPAndSSEWithToken: Tofu's client reaches Tofu's server over streamable HTTP with the
// bearer token, and is refused without it; the SSE transport of older servers works too.
func TestHTTPAndSSEWithToken(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _ := st.CreateSession("a conversation about tofu")
	st.Append(s.ID, store.EventUser, store.UserMessage{Text: "how is tofu made?"})
	runner := session.New(session.Options{Store: st, Config: func() (config.Config, error) { return config.Config{}, nil }})
	defer runner.Shutdown()
	srv := New(Options{Store: st, Library: library.New(st, library.Options{}), Runner: runner, Version: "test"})

	httpSrv := httptest.NewServer(Authorized("s3cret", server.NewStreamableHTTPServer(srv)))
	defer httpSrv.Close()
	sseSrv := httptest.NewUnstartedServer(nil)
	sseSrv.Config.Handler = server.NewSSEServer(srv, server.WithBaseURL("http://"+sseSrv.Listener.Addr().String()))
	sseSrv.Start()
	defer sseSrv.Close()

	m := mcp.NewManager(mcp.Options{})
	defer m.Close()
	m.Apply(map[string]config.MCPServer{
		"tofu":    {Type: "http", URL: httpSrv.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		"nopass":  {Type: "http", URL: httpSrv.URL, StartupTimeout: 5},
		"tofusse": {Type: "sse", URL: sseSrv.URL + "/sse"},
	})
	if got := waitState(t, m, "tofu"); got.Status != mcp.StatusConnected || len(got.Tools) != 8 {
		t.Fatalf("over HTTP with the token: %+v", got)
	}
	if got := waitState(t, m, "nopass"); got.Status != mcp.StatusFailed || !strings.Contains(got.Error, `"Authorization": "Bearer`) {
		t.Fatalf("without the token: %+v", got)
	}
	if got := waitState(t, m, "tofusse"); got.Status != mcp.StatusConnected || len(got.Tools) != 8 {
		t.Fatalf("over SSE: %+v", got)
	}
	for _, name := range []string{"tofu", "tofusse"} {
		res, err := m.CallTool(context.Background(), name, "sessions_search", map[string]any{"query": "tofu made"}, mcp.CallOptions{})
		if err != nil || !strings.Contains(res.Text, s.ID) {
			t.Fatalf("%s sessions_search: %v %+v", name, err, res)
		}
	}
}
