package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
)

// Revisions remembers the approval rules of the configurations the Settings view was handed
// (app's SettingsService.Get), by revision. The Settings view sends its whole form back on Save; without this, a rule
// that "Always allow" added while the view was open would be overwritten by the form's older
// list. With it, Save is a three-way merge for rules: what the user edited, plus what was added
// to the file since the view read it.
type Revisions struct {
	mu    sync.Mutex
	rules map[string][]PermissionRule
}

// maxRevisions bounds the memory: a view older than that many reads loses the merge (its
// Save still works, as a plain overwrite).
const maxRevisions = 32

// revisionOf names a configuration by its content.
func revisionOf(c Config) string {
	b, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Remember records c's rules and returns its revision.
func (r *Revisions) Remember(c Config) string {
	rev := revisionOf(c)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rules == nil || len(r.rules) >= maxRevisions {
		r.rules = map[string][]PermissionRule{}
	}
	r.rules[rev] = append([]PermissionRule(nil), c.Permissions.Rules...)
	return rev
}

// KeepAdded returns edited plus the rules cur holds that the revision rev did not (added by
// someone else since the editor read rev). Rules the editor removed stay removed.
func (r *Revisions) KeepAdded(rev string, cur Config, edited []PermissionRule) []PermissionRule {
	if rev == "" || rev == revisionOf(cur) {
		return edited
	}
	r.mu.Lock()
	base, ok := r.rules[rev]
	r.mu.Unlock()
	if !ok {
		return edited
	}
	out := append([]PermissionRule(nil), edited...)
	for _, c := range cur.Permissions.Rules {
		if !holds(base, c) && !holds(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func holds(rules []PermissionRule, r PermissionRule) bool {
	for _, o := range rules {
		if o.Same(r) {
			return true
		}
	}
	return false
}
