package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/usersock"
)

// commandSocket is where a running Tofu takes `tofu run` and `tofu chat` from the terminal:
// beside its database, in the data directory only its user can enter.
func commandSocket(dataDir string) string { return filepath.Join(dataDir, "tofu.sock") }

// requestWait bounds how long a connection may take to send its request, and flushWait how
// long a finished command's last frames may take to leave: a peer that stalls cannot hold
// the instance's shutdown.
const (
	requestWait = 10 * time.Second
	flushWait   = 5 * time.Second
)

// instance serves forwarded commands with the running app: turns start through the same
// runner (and ChatService) as the window's, so the window shows them live.
type instance struct {
	a   *app.App
	st  *store.Store
	fan *app.Fanout // the app's emitter: each command follows its session here

	ctx    context.Context // ends when the instance stops taking commands
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup
}

// listenForCommands serves forwarded commands on the data directory's socket until stop. The
// caller holds the data directory's database, so whatever socket is there is stale.
func listenForCommands(dataDir string, a *app.App, st *store.Store, fan *app.Fanout) (stop func(), err error) {
	l, err := usersock.Listen(commandSocket(dataDir))
	if err != nil {
		return nil, err
	}
	l.Refused = func(err error) { log.Printf("tofu: command socket: %v", err) }
	ctx, cancel := context.WithCancelCause(context.Background())
	in := &instance{a: a, st: st, fan: fan, ctx: ctx, cancel: cancel}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return // closed by stop
			}
			in.wg.Add(1)
			go func() {
				defer in.wg.Done()
				in.serve(c)
			}()
		}
	}()
	return sync.OnceFunc(func() {
		l.Close()
		cancel(agent.ErrShutdown) // forwarded turns end as the window's do
		in.wg.Wait()
	}), nil
}

// serve runs one command: its request, then the turn, then the connection is flushed.
func (in *instance) serve(c *usersock.Conn) {
	defer c.Flush(flushWait)
	c.SetReadLimit(requestLimit)
	var req forwardRequest
	c.Raw().SetReadDeadline(time.Now().Add(requestWait))
	if err := c.Recv(&req); err != nil {
		c.Send(forwardOutput{Error: toWire(fmt.Errorf("bad request: %w", err))})
		return
	}
	c.Raw().SetReadDeadline(time.Time{})
	if req.Version != forwardVersion {
		c.Send(forwardOutput{Error: toWire(fmt.Errorf(
			"the running Tofu (%s) speaks command protocol %d, this tofu (%s) speaks %d: restart the window or `tofu serve` with this build",
			Version, forwardVersion, req.Tofu, req.Version))})
		return
	}
	var err error
	switch {
	case req.Run != nil:
		err = in.run(c, req.Run)
	case req.Chat != nil:
		err = in.chat(c, *req.Chat)
	case req.MCP != nil:
		err = in.mcp(c, *req.MCP)
	case req.Paper != nil:
		err = in.paper(c, *req.Paper)
	case req.Search != nil:
		var found []history.Match
		if found, err = in.a.History().Search(req.Search.Query, req.Search.Limit); err == nil {
			c.Send(forwardOutput{Found: &forwardFound{Matches: found}})
		}
	case req.Desk != nil:
		var ans deskAnswer
		if ans, err = in.desk(*req.Desk); err == nil {
			c.Send(forwardOutput{Desk: &ans})
		}
	default:
		err = errors.New("bad request: neither run, chat nor search (nor a desk command, nor mcp)")
	}
	if err != nil {
		c.Send(forwardOutput{Error: toWire(err)})
	}
}

// follow sends the session's messages (events, deltas, resets, stream state) to c until
// remove; ended, when set, hears of the reply's end with its failure.
func (in *instance) follow(c *usersock.Conn, sid string, ended func(failure string)) (remove func()) {
	return in.fan.Add(&sessionTap{topic: app.SessionTopic(sid), c: c, ended: ended})
}

// sessionTap is an app.Emitter for one session, in front of a connection. Emit must not
// block: Send only queues.
type sessionTap struct {
	topic string
	c     *usersock.Conn
	ended func(failure string)
}

func (t *sessionTap) Emit(topic string, data any) {
	m, ok := data.(app.SessionMessage)
	if !ok || topic != t.topic {
		return
	}
	var ev *store.Event
	if e, ok := m.Event.(store.Event); ok {
		ev = &e
	}
	t.c.Send(forwardOutput{Message: &forwardMessage{Kind: m.Kind, Event: ev, Text: m.Text, Reasoning: m.Reasoning, State: m.State, Error: m.Error}})
	if m.Kind == app.MessageStream && m.State == app.StreamEnded && t.ended != nil {
		t.ended(m.Error)
	}
}

// run starts a forwarded `tofu run` as the window starts its turns, and streams it back.
func (in *instance) run(c *usersock.Conn, r *forwardedRun) error {
	o, err := checkRun(in.st, r.Options, r.Dir)
	if err != nil {
		return err
	}
	model, err := runModel(in.a, o.Model)
	if err != nil {
		return err
	}
	c.Send(forwardOutput{Note: forwardedNote(model)})
	var stopFollow func()
	defer func() {
		if stopFollow != nil {
			stopFollow()
		}
	}()
	ctx, cancel := context.WithCancelCause(in.ctx)
	defer cancel(nil)
	asked := &askedCalls{}
	questions := &forwardQuestions{c: c}
	req := runRequest(o, r.Context)
	req.Model = model
	req.Asker = questions // ask_human is asked on the command line's terminal, as approvals are
	req.Prompt = func(ap store.Approval) {
		asked.add(approvalKey(ap))
		c.Send(forwardOutput{Ask: &ap})
	}
	sent, err := in.a.Send(ctx, runMessage(o, func(sid string, first []store.Event, _ *session.Request) {
		// The command line sees the run's first events, then follows the rest.
		for _, ev := range first {
			c.Send(forwardOutput{Message: &forwardMessage{Kind: app.MessageEvent, Event: &ev}})
		}
		stopFollow = in.follow(c, sid, nil)
		go in.input(c, questions.deliver, func(a forwardApprove) {
			// Only what this connection was asked: a sub-agent's call in its own session.
			err := permission.ErrNotPending
			ap := store.Approval{CallID: a.Call, Session: a.Session}
			if asked.has(approvalKey(ap)) {
				err = in.a.Runner.Approve(cmp.Or(a.Session, sid), a.Call, string(a.Decision))
			}
			frame := answeredFrame(a.Call, err)
			frame.Session = a.Session
			c.Send(forwardOutput{Answered: frame})
		}, func() { cancel(agent.ErrStoppedByUser) })
	}), req)
	if err != nil {
		return err
	}
	end := sent.Turn.Wait()
	c.Send(forwardOutput{End: endFrame(sent.Session, end)})
	return nil
}

// forwardedNote is the first thing a forwarded run or chat says: where it runs and with which
// model, since the terminal's own settings (OLLAMA_HOST, another config) do not apply there.
func forwardedNote(model string) string {
	return fmt.Sprintf("sent to the running Tofu, which answers with its own settings and model (%s)", cmp.Or(model, "its default model"))
}

// chat sends a forwarded `tofu chat` message through the window's ChatService.
func (in *instance) chat(c *usersock.Conn, o ChatOptions) error { return in.reply(c, o, nil) }

// reply sends o's message and forwards the reply; notes, when given, are lines said after a
// reply that ended well (a paper answer's sources), from the events after before.
func (in *instance) reply(c *usersock.Conn, o ChatOptions, notes func(sid string, before uint64) []string) error {
	if o.BaseURL != "" {
		return errors.New("--base-url would change the running Tofu's provider: set it in its Settings, or quit it to use --base-url")
	}
	model, err := checkChat(in.a, o)
	if err != nil {
		return err
	}
	c.Send(forwardOutput{Note: forwardedNote(model)})
	ended := make(chan string, 1)
	var stopFollow func()
	defer func() {
		if stopFollow != nil {
			stopFollow()
		}
	}()
	var before uint64
	sent, err := chatSend(in.a, o, model, func(sid string, b uint64, notice string) {
		before = b
		if notice != "" {
			c.Send(forwardOutput{Note: notice})
		}
		stopFollow = in.follow(c, sid, func(failure string) {
			select {
			case ended <- failure:
			default:
			}
		})
	})
	if err != nil {
		return err
	}
	sid := sent.Session
	// Once the reply has ended, the connection closing must not stop a later turn of the
	// conversation (one the window started).
	var over atomic.Bool
	defer over.Store(true)
	go in.input(c, nil, func(a forwardApprove) {
		c.Send(forwardOutput{Answered: answeredFrame(a.Call, permission.ErrNotPending)})
	}, func() {
		if !over.Load() {
			in.a.Chat.Stop(sid)
		}
	})
	var failure string
	select {
	case failure = <-ended:
	case <-in.ctx.Done():
		in.a.Runner.StopAndWait(sid)
		failure = <-ended
	}
	outcome := chatOutcome(in.st, sid, before, failure)
	if outcome == nil && notes != nil {
		for _, n := range notes(sid, before) {
			c.Send(forwardOutput{Note: n})
		}
	}
	c.Send(forwardOutput{End: &forwardEnd{Session: sid, Error: toWire(outcome)}})
	return nil
}

// input reads the command line's frames after its request: approvals, and a stop (Ctrl+C).
// A connection that ends (the command line quit or was killed) stops the turn too.
func (in *instance) input(c *usersock.Conn, answer func(forwardAnswer), approve func(forwardApprove), stop func()) {
	for {
		var f forwardInput
		if err := c.Recv(&f); err != nil {
			stop()
			return
		}
		if f.Approve != nil {
			approve(*f.Approve)
		}
		if f.Answer != nil && answer != nil {
			answer(*f.Answer)
		}
		if f.Stop {
			stop()
		}
	}
}

// askedCalls are the approvals asked on one connection: it may answer those alone.
type askedCalls struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (s *askedCalls) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
}

func (s *askedCalls) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}

// forwardQuestions asks a forwarded run's ask_human questions on its command line and waits
// for the answers it sends back.
type forwardQuestions struct {
	c    *usersock.Conn
	mu   sync.Mutex
	wait map[string]chan forwardAnswer
}

func (q *forwardQuestions) Ask(ctx context.Context, question tools.Question) (string, error) {
	ch := make(chan forwardAnswer, 1)
	q.mu.Lock()
	if q.wait == nil {
		q.wait = map[string]chan forwardAnswer{}
	}
	q.wait[question.CallID] = ch
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.wait, question.CallID)
		q.mu.Unlock()
	}()
	if err := q.c.Send(forwardOutput{Question: &question}); err != nil {
		return "", errNobodyToAnswer
	}
	select {
	case a := <-ch:
		if a.None {
			return "", errNobodyToAnswer
		}
		return a.Text, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// deliver hands an answer to the question waiting for it (none waits: dropped).
func (q *forwardQuestions) deliver(a forwardAnswer) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ch := q.wait[a.Call]; ch != nil {
		select {
		case ch <- a:
		default:
		}
	}
}
