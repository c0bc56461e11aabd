package session

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// A conversation's thinking level (Enhance) reaches every model request over the settings'
// level: Ollama's think flag, Anthropic's thinking budget.
func TestConversationThinkingLevelReachesTheRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.cfg.Thinking = "off"
	f.cfg.Providers = []config.Provider{
		{Name: "local", Type: config.TypeOllama, BaseURL: f.model.URL},
		{Name: "ant", Type: config.TypeAnthropic, BaseURL: f.model.URL},
	}
	g, err := gateway.New(f.cfg, func(string) []string { return []string{"sk-ant-test"} })
	if err != nil {
		t.Fatal(err)
	}
	f.runner.o.Provider = func() (llm.Provider, string, error) { return g, f.model.URL, nil }
	f.model.Default(scripted.Reply{Text: "ok"})

	turn := func(model, level string) scripted.Call {
		t.Helper()
		f.cfg.Models.Main = model
		id := f.session(t, "", "why is the sky blue?")
		if _, err := f.st.UpdateSession(id, func(i *store.SessionInfo) { i.Thinking = level }); err != nil {
			t.Fatal(err)
		}
		before := len(f.model.Chats())
		if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
			t.Fatal(err)
		}
		chats := f.model.Chats()
		if len(chats) != before+1 {
			t.Fatalf("%s %q: %d model calls, want 1", model, level, len(chats)-before)
		}
		return chats[len(chats)-1]
	}

	// Ollama: the settings say off; the conversation's level turns thinking on, and "" follows
	// the settings.
	if c := turn(scripted.DemoModelName, "high"); c.Think == nil || !*c.Think {
		t.Fatalf("ollama with level high: think = %v", c.Think)
	}
	if c := turn(scripted.DemoModelName, ""); c.Think == nil || *c.Think {
		t.Fatalf("ollama following the settings (off): think = %v", c.Think)
	}

	// Anthropic: the level sizes budget_tokens.
	budget := func(c scripted.Call) int {
		var body struct {
			Thinking *struct {
				Type         string `json:"type"`
				BudgetTokens int    `json:"budget_tokens"`
			} `json:"thinking"`
		}
		if err := json.Unmarshal(c.Body, &body); err != nil {
			t.Fatal(err)
		}
		if body.Thinking == nil || body.Thinking.Type != "enabled" {
			return 0
		}
		return body.Thinking.BudgetTokens
	}
	ant := "ant/" + scripted.DemoModelName
	if c := turn(ant, "low"); c.Format != "anthropic" || budget(c) != 2048 {
		t.Fatalf("anthropic with level low: %s, budget %d", c.Format, budget(c))
	}
	if c := turn(ant, "high"); budget(c) != 24576 {
		t.Fatalf("anthropic with level high: budget %d", budget(c))
	}
	if c := turn(ant, "off"); budget(c) != 0 {
		t.Fatalf("anthropic with level off: budget %d", budget(c))
	}
	// The settings' level where the conversation has none.
	f.cfg.Thinking = "medium"
	g, err = gateway.New(f.cfg, func(string) []string { return []string{"sk-ant-test"} })
	if err != nil {
		t.Fatal(err)
	}
	if c := turn(ant, ""); budget(c) != 8192 {
		t.Fatalf("anthropic following the settings (medium): budget %d", budget(c))
	}
	if c := turn(ant, "off"); budget(c) != 0 {
		t.Fatalf("anthropic with level off over the settings' medium: budget %d", budget(c))
	}
}
