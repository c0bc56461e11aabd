package app

import (
	"testing"

	"github.com/tofu-research/tofu/backend/config"
)

// Regression: "Always allow" answered while the Settings view was open wrote its rule, and
// the view's Save then overwrote the file with its older list, losing the rule. Save keeps
// rules added since the view read the settings, and still removes those the user deleted.
func TestSaveKeepsRulesAddedWhileSettingsWereOpen(t *testing.T) {
	t.Parallel()
	file := config.Open(t.TempDir())
	s := NewSettingsService(file, config.FileSecrets(t.TempDir()))
	old := config.PermissionRule{Tool: "run_command", Pattern: "make *", Action: "allow", Scope: config.ScopeGlobal}
	if err := file.AddPermissionRules([]config.PermissionRule{old}); err != nil {
		t.Fatal(err)
	}
	view, err := s.Get() // the Settings view opens
	if err != nil {
		t.Fatal(err)
	}

	// An approval card is answered "Always allow" meanwhile.
	added := config.PermissionRule{Tool: "run_command", Pattern: "go test *", Action: "allow", Scope: config.ScopeGlobal, Source: "always-allow"}
	if err := file.AddPermissionRules([]config.PermissionRule{added}); err != nil {
		t.Fatal(err)
	}

	// The user deletes the old rule, adds one of their own, and saves.
	mine := config.PermissionRule{Tool: "run_command", Pattern: "rm *", Action: "deny", Scope: config.ScopeGlobal}
	view.Permissions.Rules = []config.PermissionRule{mine}
	got, err := s.Update(view)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.PermissionRule{mine, added}
	if !sameRules(got.Permissions.Rules, want) {
		t.Fatalf("rules after Save = %+v, want %+v", got.Permissions.Rules, want)
	}

	// Saving again from the fresh copy is a plain save: deleting the kept rule works.
	got.Permissions.Rules = []config.PermissionRule{mine}
	if got, err = s.Update(got); err != nil || !sameRules(got.Permissions.Rules, []config.PermissionRule{mine}) {
		t.Fatalf("second save: %+v, %v", got.Permissions.Rules, err)
	}
}

func sameRules(a, b []config.PermissionRule) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Same(b[i]) {
			return false
		}
	}
	return true
}
