package agent

import "testing"

// TestStepFooterSaysItOnce: the footer of a step names only the files its last result does not
// already name (a relay run's edit_files result ended with its own two lines again).
func TestStepFooterSaysItOnce(t *testing.T) {
	t.Parallel()
	mod := func(f ...string) map[string]bool {
		m := map[string]bool{}
		for _, x := range f {
			m[x] = true
		}
		return m
	}
	cases := []struct {
		name     string
		modified map[string]bool
		own      []string
		want     string
	}{
		{"one edit call: its result said it", mod("/ws/a.go", "/ws/b.go"), []string{"/ws/b.go", "/ws/a.go"}, ""},
		{"nothing modified", mod(), nil, ""},
		{"an edit, then a command", mod("/ws/a.go"), nil, "\n\n[also modified in this step: a.go]"},
		{"two edit calls", mod("/ws/b.go", "/ws/a.go", "/elsewhere/c.go"), []string{"/ws/b.go"},
			"\n\n[also modified in this step: /elsewhere/c.go, a.go]"},
	}
	for _, c := range cases {
		if got := reminder(c.modified, c.own, "/ws/"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
