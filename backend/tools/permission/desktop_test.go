package permission

import (
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
)

func TestDesktopDecisions(t *testing.T) {
	ws := t.TempDir()
	p, err := New(Config{Workspace: ws, Rules: map[string]Rules{
		"desktop": {{Pattern: "input:XTerm", Action: Allow}, {Pattern: "input:KeePassXC", Action: Deny}, {Pattern: "launch:*", Action: Allow}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	desk := func(target string) []tools.Access { return []tools.Access{{Kind: tools.AccessDesktop, Target: target}} }
	cases := []struct {
		name, target string
		mode         Mode
		want         Action
		remember     bool
	}{
		{"allowed app", "input:XTerm", ModeAsk, Allow, false},
		{"other app asks", "input:Firefox", ModeAsk, Ask, true},
		{"other app under safe", "input:Firefox", ModeSafe, Deny, false},
		{"allowed app under safe", "input:XTerm", ModeSafe, Allow, false},
		{"denied app", "input:KeePassXC", ModeAll, Deny, false},
		{"clipboard read asks", "clipboard:read", ModeAsk, Ask, true},
		{"launch asks despite a rule", "launch:firefox https://example.com", ModeAsk, Ask, false},
		{"launch under all is refused", "launch:xterm", ModeAll, Deny, false},
		{"input under all runs", "input:Firefox", ModeAll, Allow, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.mode.Apply(p.Decide("desktop_input", desk(c.target)))
			if d.Action != c.want || d.Rememberable() != c.remember {
				t.Fatalf("%s under %s: %+v", c.target, c.mode, d)
			}
		})
	}
}
