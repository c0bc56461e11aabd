package permission

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// svcFixture is a service on a real config.json, with two workspaces.
type svcFixture struct {
	fixture
	other string // a second workspace
	dir   string // the settings directory
	file  *config.File
}

func newSvcFixture(t *testing.T, rules ...config.PermissionRule) svcFixture {
	t.Helper()
	f := svcFixture{fixture: newFixture(t)}
	f.other = filepath.Join(filepath.Dir(f.ws), "other")
	f.dir = filepath.Join(filepath.Dir(f.ws), "config")
	if err := os.MkdirAll(f.other, 0o755); err != nil {
		t.Fatal(err)
	}
	f.file = config.Open(f.dir)
	if len(rules) > 0 {
		if err := f.file.AddPermissionRules(rules); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f svcFixture) service() *Service {
	s := NewService(f.file)
	s.home = f.home
	s.now = func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	return s
}

func exec(command, dir string) []tools.Access {
	return []tools.Access{{Kind: tools.AccessExec, Command: command, Dir: dir}}
}

// TestServiceRules: the settings' rules reach decisions: scoped to a workspace or global,
// deny winning wherever it is, specific rules before catch-alls, and the mode on top.
func TestServiceRules(t *testing.T) {
	t.Parallel()
	f := newSvcFixture(t)
	f.file.AddPermissionRules([]config.PermissionRule{
		{Tool: "run_command", Pattern: "*", Action: "ask"},
		{Tool: "run_command", Pattern: "git push*", Action: "deny"},
		{Tool: "run_command", Pattern: "make *", Action: "allow", Scope: f.ws, Source: "settings"},
		{Tool: "run_command", Pattern: "git push --dry-run*", Action: "allow", Scope: f.ws},
		{Tool: "run_command", Pattern: "touch *", Action: "allow"},
		{Tool: "network", Pattern: "example.org", Action: "deny", Scope: f.other},
	})
	s := f.service()
	for _, c := range []struct {
		ws, command string
		mode        Mode
		want        Action
		reason      string
	}{
		{f.ws, "git push origin main", ModeAsk, Deny, `denied by the rule "run_command: git push*"`},
		{f.ws, "git push --dry-run", ModeAll, Deny, "git push*"}, // deny wins over a workspace allow, and over --approve=all
		{f.ws, "make test", ModeAsk, Allow, `rule "run_command: make *"`},
		{f.other, "make test", ModeAsk, Ask, `rule "run_command: *"`}, // the make rule holds in f.ws only
		{f.other, "touch x", ModeAsk, Allow, "touch *"},               // global, before the global catch-all
		{f.ws, "ls", ModeAsk, Ask, `rule "run_command: *"`},
		{f.ws, "ls", ModeSafe, Deny, "--approve=safe"},
		{f.ws, "make test", ModeNever, Deny, "--approve=never allows only reading"},
	} {
		d := s.Check("s1", c.ws, c.mode, "run_command", exec(c.command, c.ws))
		if d.Action != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%s in %s (%s): got %s (%s), want %s (…%s…)", c.command, filepath.Base(c.ws), c.mode, d.Action, d.Reason, c.want, c.reason)
		}
	}
	net := []tools.Access{{Kind: tools.AccessNetwork, Target: "example.org"}}
	if d := s.Check("s1", f.other, ModeAsk, "fetch", net); d.Action != Deny {
		t.Errorf("a kind rule (network) scoped to a workspace: %+v", d)
	}
	if d := s.Check("s1", f.ws, ModeAsk, "fetch", net); d.Action != Ask {
		t.Errorf("the network rule of another workspace applied: %+v", d)
	}
}

// TestServiceBrokenRulesDeny: rules that cannot be read deny every call, saying why.
func TestServiceBrokenRulesDeny(t *testing.T) {
	t.Parallel()
	f := newSvcFixture(t)
	os.MkdirAll(f.dir, 0o755)
	os.WriteFile(f.file.Path(), []byte(`{"providers":[{"name":"o","type":"ollama"}],"permissions":{"rules":[{"tool":"run_command","pattern":"x","action":"always"}]}}`), 0o644)
	d := f.service().Check("s", f.ws, ModeAll, "run_command", exec("ls", f.ws))
	if d.Action != Deny || !strings.Contains(d.Reason, `action must be allow, ask or deny, not "always"`) {
		t.Fatalf("%+v", d)
	}
}

// ask runs an approval of command in ws and answers it with a, returning Answer's error.
func ask(t *testing.T, s *Service, session, ws, callID, command string, a Answer) error {
	t.Helper()
	d := s.Check(session, ws, ModeAsk, "run_command", exec(command, ws))
	if d.Action != Ask {
		t.Fatalf("%s: want an ask, got %+v", command, d)
	}
	var answerErr error
	got, err := s.Ask(context.Background(), session, ws, callID, d, func() error {
		// The answer may arrive before the wait starts: the UI answers as soon as it sees the card.
		answerErr = s.Answer(session, callID, a)
		if answerErr != nil {
			return s.Answer(session, callID, AllowOnce)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if answerErr == nil && got != a {
		t.Fatalf("Ask returned %q, answered %q", got, a)
	}
	return answerErr
}

// TestServiceGrants: what each answer allows afterwards, in the same session, another session
// of the workspace, another workspace, and after a restart (a new service on the same settings).
func TestServiceGrants(t *testing.T) {
	t.Parallel()
	type where struct{ sameSession, otherSession, otherWorkspace, restarted Action }
	for _, c := range []struct {
		answer Answer
		want   where
		rules  int
	}{
		{AllowOnce, where{Ask, Ask, Ask, Ask}, 0},
		{DenyOnce, where{Ask, Ask, Ask, Ask}, 0},
		{AllowSession, where{Allow, Ask, Ask, Ask}, 0},
		{AllowWorkspace, where{Allow, Allow, Ask, Ask}, 0},
		{AlwaysWorkspace, where{Allow, Allow, Ask, Allow}, 1},
		{AlwaysGlobal, where{Allow, Allow, Allow, Allow}, 1},
	} {
		t.Run(string(c.answer), func(t *testing.T) {
			t.Parallel()
			f := newSvcFixture(t)
			s := f.service()
			const command = "go test ./..."
			if err := ask(t, s, "s1", f.ws, "c1", command, c.answer); err != nil {
				t.Fatal(err)
			}
			check := func(s *Service, session, ws string) Action {
				return s.Check(session, ws, ModeAsk, "run_command", exec(command, ws)).Action
			}
			got := where{check(s, "s1", f.ws), check(s, "s2", f.ws), check(s, "s3", f.other), check(f.service(), "s1", f.ws)}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			rules, err := f.file.PermissionRules()
			if err != nil || len(rules) != c.rules {
				t.Fatalf("rules = %+v, %v", rules, err)
			}
			if c.rules == 1 {
				r := rules[0]
				scope := config.ScopeGlobal
				if c.answer == AlwaysWorkspace {
					scope = f.ws
				}
				want := config.PermissionRule{Tool: "run_command", Pattern: command, Action: "allow", Scope: scope, Source: "always-allow on 2026-12-01 in session s1"}
				if r != want {
					t.Errorf("rule = %+v, want %+v", r, want)
				}
			}
			// A grant allows that subject only.
			if d := s.Check("s1", f.ws, ModeAsk, "run_command", exec("go vet ./...", f.ws)); d.Action != Ask {
				t.Errorf("another command: %+v", d)
			}
		})
	}
}

// TestServiceOnceOnly: a subject that must never be remembered (outside the workspace) is
// allowed once at most, and nothing is granted or written.
func TestServiceOnceOnly(t *testing.T) {
	t.Parallel()
	f := newSvcFixture(t)
	s := f.service()
	command := "cat " + f.outside + "/secret"
	for _, a := range []Answer{AllowSession, AllowWorkspace, AlwaysWorkspace, AlwaysGlobal} {
		if err := ask(t, s, "s1", f.ws, "c-"+string(a), command, a); !errors.Is(err, ErrOnceOnly) {
			t.Errorf("%s: err = %v, want ErrOnceOnly", a, err)
		}
	}
	if d := s.Check("s1", f.ws, ModeAsk, "run_command", exec(command, f.ws)); d.Action != Ask || d.Rememberable() {
		t.Errorf("after refused grants: %+v", d)
	}
	if rules, _ := f.file.PermissionRules(); len(rules) != 0 {
		t.Errorf("rules written: %+v", rules)
	}
}

// TestServiceRequests: answering what nobody waits on, answering twice, and an interrupt.
func TestServiceRequests(t *testing.T) {
	t.Parallel()
	f := newSvcFixture(t)
	s := f.service()
	if err := s.Answer("s1", "nope", AllowOnce); !errors.Is(err, ErrNotPending) {
		t.Errorf("not pending: %v", err)
	}
	if err := s.Answer("s1", "nope", "maybe"); err == nil || !strings.Contains(err.Error(), `not "maybe"`) {
		t.Errorf("bad answer: %v", err)
	}
	d := s.Check("s1", f.ws, ModeAsk, "run_command", exec("npm install", f.ws))
	// Twice: the second answer is refused and the first one stands.
	got, err := s.Ask(context.Background(), "s1", f.ws, "c1", d, func() error {
		if err := s.Answer("s1", "c1", DenyOnce); err != nil {
			return err
		}
		if err := s.Answer("s1", "c1", AllowOnce); !errors.Is(err, ErrAnswered) {
			return fmt.Errorf("second answer: %v", err)
		}
		return nil
	})
	if err != nil || got != DenyOnce {
		t.Fatalf("got %q, %v", got, err)
	}
	if err := s.Answer("s1", "c1", AllowOnce); !errors.Is(err, ErrNotPending) {
		t.Errorf("after the wait: %v", err)
	}
	// An interrupt ends the wait with its cause; the request is gone.
	stop := errors.New("stopped by the user")
	ctx, cancel := context.WithCancelCause(context.Background())
	_, err = s.Ask(ctx, "s1", f.ws, "c2", d, func() error {
		if !s.Pending("s1", "c2") {
			return errors.New("not pending while asked")
		}
		cancel(stop)
		return nil
	})
	if !errors.Is(err, stop) || s.Pending("s1", "c2") {
		t.Errorf("interrupt: %v, pending %v", err, s.Pending("s1", "c2"))
	}
	// An announce that fails (the asked event could not be written) ends the ask.
	if _, err := s.Ask(context.Background(), "s1", f.ws, "c3", d, func() error { return errors.New("disk full") }); err == nil || s.Pending("s1", "c3") {
		t.Errorf("failed announce: %v", err)
	}
}

// TestServiceRestore: session and workspace grants come back from the log; once-only
// approvals, a policy's decisions and rules answers add nothing.
func TestServiceRestore(t *testing.T) {
	t.Parallel()
	f := newSvcFixture(t)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, _ := st.CreateSession("t")
	for _, ap := range []store.Approval{
		{CallID: "1", Name: "run_command", Subject: "go test ./...", Decision: "allow_session", By: ByUser},
		{CallID: "2", Name: "run_command", Subject: "go vet ./...", Decision: "allow_workspace", By: ByUser},
		{CallID: "3", Name: "run_command", Subject: "make", Decision: "allow_session", By: ByPolicy},
		{CallID: "4", Name: "run_command", Subject: "npm install", Decision: "allow_always", By: ByUser},
	} {
		if _, err := st.Append(info.ID, store.EventApproval, ap); err != nil {
			t.Fatal(err)
		}
	}
	events, _ := st.Events(info.ID)
	s := f.service()
	s.Restore(info.ID, f.ws, events)
	for _, c := range []struct {
		session, command string
		want             Action
	}{
		{info.ID, "go test ./...", Allow},
		{"other", "go test ./...", Ask},
		{"other", "go vet ./...", Allow},
		{info.ID, "make", Ask},
		{info.ID, "npm install", Ask},
	} {
		if d := s.Check(c.session, f.ws, ModeAsk, "run_command", exec(c.command, f.ws)); d.Action != c.want {
			t.Errorf("%s in %s: %+v", c.command, c.session, d)
		}
	}
}

// TestServiceConcurrentAnswers: many turns asking and many answers at once (run with -race):
// every wait gets exactly its answer, each request is answered once, every grant and rule lands.
func TestServiceConcurrentAnswers(t *testing.T) {
	t.Parallel()
	f := newSvcFixture(t)
	s := f.service()
	const n = 48
	answers := []Answer{AllowOnce, AllowSession, AllowWorkspace, AlwaysWorkspace, DenyOnce, AlwaysGlobal}
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := map[string]int{}
	errs := make(chan error, n*4)
	for i := range n {
		session := fmt.Sprintf("s%d", i%4)
		command := fmt.Sprintf("go test ./pkg%d", i)
		want := answers[i%len(answers)]
		callID := fmt.Sprintf("c%d", i)
		d := s.Check(session, f.ws, ModeAsk, "run_command", exec(command, f.ws))
		asked := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := s.Ask(context.Background(), session, f.ws, callID, d, func() error { close(asked); return nil })
			if err != nil || got != want {
				errs <- fmt.Errorf("%s: got %q, %v; want %q", callID, got, err, want)
			}
		}()
		// Three answerers race on each request; exactly one wins.
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-asked
				err := s.Answer(session, callID, want)
				switch {
				case err == nil:
					mu.Lock()
					accepted[callID]++
					mu.Unlock()
				case !errors.Is(err, ErrAnswered) && !errors.Is(err, ErrNotPending):
					errs <- fmt.Errorf("%s: %v", callID, err)
				}
			}()
		}
		wg.Add(1)
		go func() { // checks read the grants while they are written
			defer wg.Done()
			s.Check(session, f.ws, ModeAsk, "run_command", exec(command, f.ws))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range n {
		if c := accepted[fmt.Sprintf("c%d", i)]; c != 1 {
			t.Errorf("c%d answered %d times", i, c)
		}
	}
	rules, err := f.file.PermissionRules()
	if want := 2 * n / len(answers); err != nil || len(rules) != want {
		t.Errorf("%d rules written, want %d (%v)", len(rules), want, err)
	}
	for i := range n {
		session, command := fmt.Sprintf("s%d", i%4), fmt.Sprintf("go test ./pkg%d", i)
		want := Allow
		if a := answers[i%len(answers)]; a == AllowOnce || a == DenyOnce {
			want = Ask
		}
		if d := s.Check(session, f.ws, ModeAsk, "run_command", exec(command, f.ws)); d.Action != want {
			t.Errorf("%s after %s: %s", command, answers[i%len(answers)], d.Action)
		}
	}
}

// TestRememberable: only an ask with rules to remember, a subject, and nothing that must hold
// for this call only can be granted beyond once.
func TestRememberable(t *testing.T) {
	t.Parallel()
	rules := map[string][]Rule{"run_command": {{Pattern: "make", Action: Allow}}}
	for _, c := range []struct {
		d    Decision
		want bool
	}{
		{Decision{Action: Ask, Subject: "make", Remember: rules}, true},
		{Decision{Action: Ask, Subject: "make", Remember: rules, Once: true}, false},
		{Decision{Action: Ask, Subject: "make"}, false},
		{Decision{Action: Ask, Remember: rules}, false},
		{Decision{Action: Allow, Subject: "make", Remember: rules}, false},
	} {
		if got := c.d.Rememberable(); got != c.want {
			t.Errorf("%+v: %v", c.d, got)
		}
	}
}
