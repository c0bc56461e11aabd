package trace

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// A model call the client refused before sending anything (the request did not fit the
// window) has no request to fingerprint: verify says so instead of raising the tamper alarm
// (issue 32), and still checks the calls that were sent.
func TestVerifyPassesACallRefusedBeforeItWasSent(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Text: "Noted."})
	cfg := config.Config{Providers: []config.Provider{{Name: "local", Type: config.TypeOllama, BaseURL: srv.URL}}}
	cfg.Models.Main = scripted.DemoModelName
	gw, err := gateway.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := session.New(session.Options{
		Store:    st,
		Provider: func() (llm.Provider, string, error) { return gw, srv.URL, nil },
		Config:   func() (config.Config, error) { return cfg, nil },
	})
	defer r.Shutdown()
	info, err := st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Remember the number 41.", strings.Repeat("far too long ", 30_000)} {
		if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: text}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(context.Background(), session.Request{Session: info.ID}); err != nil {
			t.Fatal(err)
		}
	}
	sent := len(srv.Chats()) // the first reply and the L2 summary
	res, err := Verify(st, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unsent) == 0 || res.Verified != sent || len(res.Unsent) != res.Calls-sent {
		t.Fatalf("result %+v", res)
	}
	if s := strings.Join(res.Summary(), "\n"); !strings.Contains(s, "refused before") {
		t.Errorf("summary %q", s)
	}
}
