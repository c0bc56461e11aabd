package permission

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/store"
)

// Answer is a user's answer to an approval; its values are the log's (store.Decision, where
// they are declared once).
type Answer string

const (
	// AllowOnce runs this call only.
	AllowOnce = Answer(store.DecisionAllow)
	// AllowSession allows the same subject for the rest of the session.
	AllowSession = Answer(store.DecisionAllowSession)
	// AllowWorkspace allows the same subject in the workspace until Tofu closes.
	AllowWorkspace = Answer(store.DecisionAllowWorkspace)
	// AlwaysWorkspace writes rules that allow the subject in this workspace, in the settings.
	AlwaysWorkspace = Answer(store.DecisionAlways)
	// AlwaysGlobal writes rules that allow the subject in every workspace, in the settings.
	AlwaysGlobal = Answer(store.DecisionAlwaysGlobal)
	// DenyOnce refuses this call; the model is told so.
	DenyOnce = Answer(store.DecisionDeny)
)

// Scope is how far an answer reaches beyond the call it answers.
type Scope string

const (
	ScopeOnce      Scope = "once"
	ScopeSession   Scope = "session"
	ScopeWorkspace Scope = "workspace"
	ScopeAlways    Scope = "always" // a rule in the settings
)

// Who decided a call, as the log records it (store.Approval.By).
const (
	ByUser   = store.ByUser
	ByPolicy = store.ByPolicy
)

// ParseAnswer reads an answer from the UI or the log.
func ParseAnswer(s string) (Answer, error) {
	switch a := Answer(s); a {
	case AllowOnce, AllowSession, AllowWorkspace, AlwaysWorkspace, AlwaysGlobal, DenyOnce:
		return a, nil
	}
	return "", fmt.Errorf("an approval answer is allow, allow_session, allow_workspace, allow_always, allow_always_global or deny, not %q", s)
}

// Allows reports whether the call runs.
func (a Answer) Allows() bool { return a != DenyOnce && a != "" }

// Scope is how far the answer reaches.
func (a Answer) Scope() Scope {
	switch a {
	case AllowSession:
		return ScopeSession
	case AllowWorkspace:
		return ScopeWorkspace
	case AlwaysWorkspace, AlwaysGlobal:
		return ScopeAlways
	}
	return ScopeOnce
}

// Rememberable reports whether an answer may reach beyond this one call (a session, the
// workspace, a rule). Only an ask whose every part a rule could allow is: nothing outside the
// workspace, nothing only known at run time, no protected or sensitive place (Once).
func (d Decision) Rememberable() bool {
	return d.Action == Ask && !d.Once && len(d.Remember) > 0 && d.Subject != ""
}
