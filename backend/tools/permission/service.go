package permission

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// The approval service: one owner, under one lock, for the approvals every running turn waits
// on and for what the user granted (for a session, for a workspace until Tofu closes, or as a
// rule in the settings). The window, `tofu run` and the agent all go through it.

// RuleBook is where the approval rules live: the settings (config.File).
type RuleBook interface {
	PermissionRules() ([]config.PermissionRule, error)
	AddPermissionRules(rules []config.PermissionRule) error
}

var (
	// ErrNotPending answers an Answer for a call nobody waits on (the turn ended, or it was
	// never asked).
	ErrNotPending = errors.New("this approval is no longer pending (the turn ended): press Continue to ask again")
	// ErrAnswered answers a second Answer to the same request.
	ErrAnswered = errors.New("this approval was already answered")
	// ErrOnceOnly answers a grant beyond once for a subject that must never be remembered.
	ErrOnceOnly = errors.New("this call can only be allowed once (it reaches outside the workspace or a protected place)")
)

// Service decides calls (rules from the settings, then the user's grants, then the --approve
// mode) and holds the approvals in flight. It is safe for concurrent use.
type Service struct {
	rules RuleBook
	home  string           // what "~" means in path rules; empty: the user's home
	now   func() time.Time // dates the rules "Always allow" writes
	// commands says how run_command's commands run (nil: unconfined); read at every check,
	// since the settings may change it.
	commands func() (Boundary, string)
	shown    []string // places inside secret ones the sandbox shows (Config.Shown)

	mu        sync.Mutex
	pending   map[requestKey]*request
	session   map[string]map[string]bool // session id → subjects allowed for the session
	workspace map[string]map[string]bool // workspace → subjects allowed until Tofu closes
}

type requestKey struct{ session, callID string }

type request struct {
	workspace string
	decision  Decision
	answer    chan Answer // buffered: the answer may come before the wait starts
	answering bool        // an answer is being written (an "always" rule); others are refused
	answered  bool
}

// NewService serves approvals under the rules in book (nil: no rules).
func NewService(book RuleBook) *Service {
	return &Service{rules: book, now: time.Now,
		pending: map[requestKey]*request{}, session: map[string]map[string]bool{}, workspace: map[string]map[string]bool{}}
}

// Check decides a call of tool that touches access, in session (at workspace) under mode: the
// rules of the settings that hold in workspace (deny wins), then what the user granted for the
// session or the workspace, then the mode. Rules that cannot be read deny, saying why.
func (s *Service) Check(session, workspace string, mode Mode, tool string, access []tools.Access) Decision {
	p, err := s.policy(workspace, mode)
	if err != nil {
		return Decision{Action: Deny, Tool: tool, Reason: err.Error()}
	}
	d := mode.Apply(p.Decide(tool, access))
	if d.Action == Ask && d.Rememberable() && s.granted(session, workspace, d.Subject) {
		d.Action, d.Reason = Allow, "allowed earlier by the user: "+d.Reason
	}
	return d
}

// policy is the rules engine for workspace with the settings' rules that hold there (and
// ModeSuite's profile under that mode).
func (s *Service) policy(workspace string, mode Mode) (*Policy, error) {
	var rules []config.PermissionRule
	if s.rules != nil {
		var err error
		if rules, err = s.rules.PermissionRules(); err != nil {
			return nil, fmt.Errorf("the permission rules cannot be read: %w", err)
		}
	}
	cfg := Config{Workspace: workspace, Rules: RulesFor(rules, workspace), Home: s.home}
	if s.commands != nil {
		cfg.Commands, cfg.NoSandbox = s.commands()
		if cfg.Commands == BoundarySandbox {
			cfg.Shown = s.shown
		}
	}
	if mode == ModeSuite {
		cfg = suiteConfig(cfg)
	}
	return New(cfg)
}

// RulesFor arranges the settings' rules that hold in workspace for the engine, by tool or kind:
// the workspace's own rules before the global ones, and specific patterns before catch-alls
// ("*"), so a remembered "Always allow" is never shadowed by a final "*": ask.
func RulesFor(rules []config.PermissionRule, workspace string) map[string]Rules {
	out := map[string]Rules{}
	ws := filepath.Clean(workspace)
	for _, global := range []bool{false, true} {
		for _, r := range rules {
			if r.Global() != global || (!global && filepath.Clean(r.Scope) != ws) {
				continue
			}
			rule := Rule{Pattern: r.Pattern, Action: Action(r.Action)}
			if isCatchAll(r.Pattern) {
				out[r.Tool] = append(out[r.Tool], rule)
			} else {
				out[r.Tool] = out[r.Tool].Add(rule)
			}
		}
	}
	return out
}

// SetCommands tells the service how commands run (the settings' choice and whether this
// machine has a sandbox, and if not why: session.CommandBoundary), asked at every check.
// Call it before use.
// shown are places inside secret ones that the sandbox shows its commands (Config.Shown).
func (s *Service) SetCommands(f func() (Boundary, string), shown ...string) {
	s.commands, s.shown = f, shown
}

func (s *Service) granted(session, workspace, subject string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session[session][subject] || s.workspace[filepath.Clean(workspace)][subject]
}

// Ask puts an ask to the user and waits for the answer: it registers the request of call
// callID, then calls announce (which shows it: the "asked" approval event), then waits for
// Answer or for ctx (an interrupt). A request is answered once; it is gone when Ask returns.
func (s *Service) Ask(ctx context.Context, session, workspace, callID string, d Decision, announce func() error) (Answer, error) {
	k := requestKey{session, callID}
	req := &request{workspace: workspace, decision: d, answer: make(chan Answer, 1)}
	s.mu.Lock()
	if s.pending[k] != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("call %s of session %s is already waiting for an approval", callID, session)
	}
	s.pending[k] = req
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, k)
		s.mu.Unlock()
	}()
	if announce != nil {
		if err := announce(); err != nil {
			return "", err
		}
	}
	select {
	case a := <-req.answer:
		return a, nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// Pending reports whether call callID of session waits for an answer.
func (s *Service) Pending(session, callID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.pending[requestKey{session, callID}]
	return r != nil && !r.answered
}

// Answer answers the approval call callID of session waits for, and records the grant it
// gives: for the session, for the workspace, or as rules in the settings (source says where
// they came from). An answer beyond once on a subject that must not be remembered is
// ErrOnceOnly; a request nobody waits on is ErrNotPending.
func (s *Service) Answer(session, callID string, a Answer) error {
	if _, err := ParseAnswer(string(a)); err != nil {
		return err
	}
	k := requestKey{session, callID}
	s.mu.Lock()
	req := s.pending[k]
	switch {
	case req == nil:
		s.mu.Unlock()
		return ErrNotPending
	case req.answered || req.answering:
		s.mu.Unlock()
		return ErrAnswered
	case a.Allows() && a.Scope() != ScopeOnce && !req.decision.Rememberable():
		s.mu.Unlock()
		return ErrOnceOnly
	}
	if a.Scope() == ScopeAlways {
		// Writing the settings happens outside the lock; the request is held meanwhile.
		req.answering = true
		s.mu.Unlock()
		err := s.writeRules(session, req, a)
		s.mu.Lock()
		req.answering = false
		if err != nil {
			s.mu.Unlock()
			return err
		}
	}
	s.grantLocked(session, req.workspace, req.decision.Subject, a)
	req.answered = true
	req.answer <- a
	s.mu.Unlock()
	return nil
}

// grantLocked records a session or workspace grant; s.mu is held.
func (s *Service) grantLocked(session, workspace, subject string, a Answer) {
	var m map[string]map[string]bool
	key := session
	switch a.Scope() {
	case ScopeSession:
		m = s.session
	case ScopeWorkspace:
		m, key = s.workspace, filepath.Clean(workspace)
	default:
		return
	}
	if m[key] == nil {
		m[key] = map[string]bool{}
	}
	m[key][subject] = true
}

// writeRules adds to the settings the rules that allow what req asked about.
func (s *Service) writeRules(session string, req *request, a Answer) error {
	if s.rules == nil {
		return errors.New("there are no settings to write an always-allow rule to")
	}
	scope := config.ScopeGlobal
	if a == AlwaysWorkspace {
		scope = req.workspace
	}
	source := fmt.Sprintf("always-allow on %s in session %s", s.now().Format("2006-01-02"), session)
	var add []config.PermissionRule
	for key, rs := range req.decision.Remember {
		for _, r := range rs {
			add = append(add, config.PermissionRule{Tool: key, Pattern: r.Pattern, Action: string(r.Action), Scope: scope, Source: source})
		}
	}
	if err := s.rules.AddPermissionRules(add); err != nil {
		return fmt.Errorf("write the always-allow rule: %w", err)
	}
	return nil
}

// Restore rebuilds the session's and the workspace's grants from a session's log (a restart,
// a continued session): the user's "for this session" and "in this workspace" answers.
// Rules need nothing: they are in the settings.
func (s *Service) Restore(session, workspace string, events []store.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range events {
		var ap store.Approval
		if ev.Type != store.EventApproval || ev.Decode(&ap) != nil || ap.By != ByUser || ap.Once {
			continue
		}
		s.grantLocked(session, workspace, ap.Subject, Answer(ap.Decision))
	}
}

// Forget drops the grants of a session (it was deleted).
func (s *Service) Forget(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.session, session)
}
