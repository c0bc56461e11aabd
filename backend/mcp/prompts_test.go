package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
)

// TestPromptsAsSlashCommands: server-everything's prompts are listed with their arguments, and
// "/everything:args-prompt …" expands through prompts/get, with name=value pairs, with a free
// value for the one required argument, and refusing what is missing or unknown.
func TestPromptsAsSlashCommands(t *testing.T) {
	t.Parallel()
	w := newWatched(t, Options{}, map[string]config.MCPServer{"everything": everything(t)})
	w.until(t, "connected", connected("everything", 1))
	names := map[string]PromptInfo{}
	for _, p := range w.Prompts() {
		names[p.Name] = p
	}
	if a := names["args-prompt"]; len(a.Arguments) != 2 || !a.Arguments[0].Required || a.Arguments[0].Name != "city" {
		t.Fatalf("prompts: %+v", w.Prompts())
	}
	ctx := context.Background()
	for cmd, want := range map[string]string{
		"/everything:simple-prompt":                                "This is a simple prompt without arguments.",
		"/everything:args-prompt city=Paris state='Île de France'": "What's weather in Paris, Île de France?",
		"/everything:args-prompt New York":                         "What's weather in New York?",
	} {
		got, err := w.ExpandPrompt(ctx, cmd)
		if err != nil || !strings.Contains(got, want) {
			t.Fatalf("%s: %q, %v", cmd, got, err)
		}
	}
	for cmd, want := range map[string]string{
		"/everything:args-prompt":      "needs city",
		"/everything:no-such":          "no MCP server offers",
		"/everything:simple-prompt xy": "takes no argument",
	} {
		if _, err := w.ExpandPrompt(ctx, cmd); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v", cmd, err)
		}
	}
}
