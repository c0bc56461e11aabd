package openai

import "testing"

// An empty base URL means the default the Settings field shows, not an invalid URL reported
// as an unreachable server.
func TestEmptyBaseURLIsTheDefault(t *testing.T) {
	t.Parallel()
	p := New("  ", "")
	if p.BaseURL() != DefaultBaseURL || p.usable() != nil {
		t.Fatalf("New(\"\") uses %q (%v), want %s", p.BaseURL(), p.usable(), DefaultBaseURL)
	}
	if p.maxCompletion == nil || !*p.maxCompletion {
		t.Fatal("api.openai.com takes max_completion_tokens")
	}
}
