package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestShownPlaceIsNoSecret: the global skills folder lies in Tofu's config folder, a secret
// place, but the sandbox shows it read-only: running a skill's script there does not ask,
// while Tofu's keys beside it stay a secret.
func TestShownPlaceIsNoSecret(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	skills := filepath.Join(f.home, ".config", "tofu", "skills")
	if err := os.MkdirAll(filepath.Join(skills, "probe"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, _ := sandboxPolicy(t, f, nil)
	p.cfg.Shown = []string{skills}
	run := func(cmd string) Decision {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return f.check(p, "run_command", string(b))
	}
	if d := run("sh " + skills + "/probe/run.sh"); d.Action != Allow {
		t.Fatalf("a shown skill's script: %+v", d)
	}
	if d := run("cat " + f.home + "/.config/tofu/secrets.json"); d.Action != Ask || !d.Secret {
		t.Fatalf("Tofu's keys beside the shown folder: %+v", d)
	}
	p.cfg.Shown = nil
	if d := run("sh " + skills + "/probe/run.sh"); d.Action != Ask || !d.Secret {
		t.Fatalf("the skills folder not shown is a secret place: %+v", d)
	}
}
