package permission

import (
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
)

// A message sent into another conversation (a scheduled prompt or watch) asks: its turn runs
// there later, where nobody who approved this call is watching. never denies it; a rule of
// the tool or of the kind decides.
func TestConversationAsks(t *testing.T) {
	t.Parallel()
	into := []tools.Access{{Kind: tools.AccessSession, Target: "c2"}}
	p, err := New(Config{Workspace: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := p.Decide("schedule_add", into)
	if d.Action != Ask || d.ReadOnly || d.Subject != "conversation c2" {
		t.Fatalf("decision %+v", d)
	}
	if d := ModeNever.Apply(d); d.Action != Deny {
		t.Fatalf("under never: %+v", d)
	}
	for rules, want := range map[string]Action{"schedule_add": Allow, "session": Allow} {
		p, _ := New(Config{Workspace: t.TempDir(), Home: t.TempDir(), Rules: map[string]Rules{rules: {{Pattern: "c2", Action: Allow}}}})
		if d := p.Decide("schedule_add", into); d.Action != want {
			t.Errorf("rule of %s: %+v", rules, d)
		}
	}
	deny, _ := New(Config{Workspace: t.TempDir(), Home: t.TempDir(), Rules: map[string]Rules{"session": {{Pattern: "*", Action: Deny}}}})
	if d := deny.Decide("schedule_add", into); d.Action != Deny {
		t.Errorf("a deny rule: %+v", d)
	}
}
