package config

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestPermissionRulesValidate: each malformed rule is refused with its number and what is
// wrong; a hand-edited file with one is an error that names the file.
func TestPermissionRulesValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rule PermissionRule
		want string
	}{
		{PermissionRule{Pattern: "x", Action: "allow"}, "tool must be"},
		{PermissionRule{Tool: "run command", Pattern: "x", Action: "allow"}, "tool must be"},
		{PermissionRule{Tool: "run_command", Action: "allow"}, "pattern is empty"},
		{PermissionRule{Tool: "run_command", Pattern: "x", Action: "always"}, `action must be allow, ask or deny, not "always"`},
		{PermissionRule{Tool: "run_command", Pattern: "x", Action: "allow", Scope: "src"}, `scope must be "global" or a workspace's absolute path`},
	} {
		p := Permissions{Rules: []PermissionRule{{Tool: "read", Pattern: "*", Action: "allow"}, c.rule}}
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), "permission rule 2") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.rule, err)
		}
	}
	dir := t.TempDir()
	f := Open(dir)
	os.WriteFile(f.Path(), []byte(`{"providers":[{"name":"o","type":"ollama"}],"permissions":{"rules":[{"tool":"run_command","pattern":"rm *","action":"nope"}]}}`), 0o644)
	if _, err := f.Load(); err == nil || !strings.Contains(err.Error(), f.Path()) || !strings.Contains(err.Error(), `not "nope"`) {
		t.Fatalf("load: %v", err)
	}
}

// TestAddPermissionRules: rules are normalized, duplicates are not added twice, and adds from
// many goroutines at once all land (each is a read-change-write of the file).
func TestAddPermissionRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := Open(dir)
	if err := f.AddPermissionRules([]PermissionRule{{Tool: " run_command ", Pattern: "make *", Action: "Allow"}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := PermissionRule{Tool: "run_command", Pattern: fmt.Sprintf("go test ./p%d", i%10), Action: "allow", Scope: "/ws/"}
			if err := f.AddPermissionRules([]PermissionRule{r, {Tool: "run_command", Pattern: "make *", Action: "allow", Scope: "global"}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	rules, err := Open(dir).PermissionRules()
	if err != nil || len(rules) != 11 {
		t.Fatalf("%d rules, %v: %+v", len(rules), err, rules)
	}
	if r := rules[0]; r.Tool != "run_command" || r.Action != "allow" || r.Scope != ScopeGlobal {
		t.Errorf("not normalized: %+v", r)
	}
	if r := rules[1]; r.Scope != "/ws" {
		t.Errorf("scope not cleaned: %+v", r)
	}
}
