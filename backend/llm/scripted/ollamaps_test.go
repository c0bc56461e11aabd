package scripted

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"
)

// TestOllamaLoadUnloadAndPS: as on a real Ollama, a chat loads its model into /api/ps, a chat
// without messages and keep_alive 0 unloads it ("unload"), one without keep_alive loads it
// ("load").
func TestOllamaLoadUnloadAndPS(t *testing.T) {
	t.Parallel()
	srv := New(t, Model{Name: "m:latest"}, Model{Name: "other:latest"})
	srv.Default(Reply{Text: "hi"})
	u, _ := url.Parse(srv.URL)
	c := api.NewClient(u, http.DefaultClient)
	ctx := context.Background()
	ps := func() []string {
		t.Helper()
		r, err := c.ListRunning(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range r.Models {
			names = append(names, m.Name)
		}
		return names
	}
	chat := func(req *api.ChatRequest) string {
		t.Helper()
		var reason string
		if err := c.Chat(ctx, req, func(r api.ChatResponse) error { reason = r.DoneReason; return nil }); err != nil {
			t.Fatal(err)
		}
		return reason
	}
	if got := ps(); len(got) != 0 {
		t.Fatalf("before any chat: %v", got)
	}
	chat(&api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "x"}}})
	if got := ps(); !slices.Equal(got, []string{"m:latest"}) {
		t.Fatalf("after a chat: %v", got)
	}
	if r := chat(&api.ChatRequest{Model: "m", KeepAlive: &api.Duration{}}); r != "unload" {
		t.Errorf("keep_alive 0: done_reason %q", r)
	}
	if got := ps(); len(got) != 0 {
		t.Fatalf("after unloading: %v", got)
	}
	if r := chat(&api.ChatRequest{Model: "other"}); r != "load" {
		t.Errorf("no messages: done_reason %q", r)
	}
	if got := ps(); !slices.Equal(got, []string{"other:latest"}) {
		t.Fatalf("after loading: %v", got)
	}
}
