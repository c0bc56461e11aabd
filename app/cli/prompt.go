package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// terminalPrompt asks on the terminal (under --approve=ask) once the asked approval event is
// written, and gives the answer to the approval service: y (once), s (for this session), a
// (always in this workspace: writes a rule to the settings), anything else (or the end of
// the input) denies. Prompts are put one at a time, each reading one line of in. A prompt
// whose approval the log says was decided elsewhere (the window of a Tofu the run was
// forwarded to, or an expiry) stops waiting, and the next line goes to the next prompt.
// stop ends the prompts of a finished run.
func terminalPrompt(in io.Reader, errOut io.Writer, answer func(req store.Approval, a permission.Answer) error, decided *decisions) (prompt func(store.Approval), stop func()) {
	return newTerminalInput(in).prompt(errOut, answer, decided)
}

// terminalInput is a run's input on the terminal, shared by its approval prompts and its
// questions (ask_human).
type terminalInput struct {
	mu sync.Mutex // one prompt on the terminal at a time
	// One reader for the whole run: a reader per prompt would buffer the answers piped for
	// later prompts (printf 'y\ny\n' | tofu run …) and lose them.
	feed *lineFeed
	// A terminal echoes the answer and its newline; a pipe does not, and the next line printed
	// would land on the prompt's. The answer read is then written out as if typed.
	echo bool
}

func newTerminalInput(in io.Reader) *terminalInput {
	return &terminalInput{feed: newLineFeed(in), echo: !isTerminal(in)}
}

// prompt is terminalPrompt on ti.
func (ti *terminalInput) prompt(errOut io.Writer, answer func(req store.Approval, a permission.Answer) error, decided *decisions) (prompt func(store.Approval), stop func()) {
	mu, feed, echo := &ti.mu, ti.feed, ti.echo
	if decided == nil {
		decided = &decisions{}
	}
	prompt = func(req store.Approval) {
		go func() {
			mu.Lock()
			settled := decided.of(forward.ApprovalKey(req))
			choices := "[y]es once / [s]ession / [a]lways in this workspace (writes a rule) / [N]o"
			if req.Once {
				choices = "[y]es once / [N]o"
			}
			// The subject is printed exactly (quoted and escaped when it holds anything a
			// terminal would act on), so the line shows the command that will run.
			by := ""
			if req.Agent != "" {
				by = " for " + termLine(req.Agent) // a sub-agent asks through its parent's prompt
			}
			if !decided.showWith(forward.ApprovalKey(req), func() {
				fmt.Fprintf(errOut, "\nAllow %s%s: %s\n  (%s) %s: ", termLine(req.Name), by, termLine(req.Subject), termText(req.Reason), choices)
			}) {
				mu.Unlock()
				return // answered before its turn on the terminal came
			}
			var line string
			select {
			case line = <-feed.lines():
			case <-settled:
				mu.Unlock() // the printer ended the prompt's line with the decision
				return
			case <-feed.stopped:
				mu.Unlock()
				return
			}
			decided.hide()
			if echo {
				fmt.Fprintln(errOut, termLine(strings.TrimSpace(line)))
			}
			mu.Unlock()
			a := terminalAnswer(line)
			if req.Once && a.Allows() && a != permission.AllowOnce {
				fmt.Fprintln(errOut, "  (allowed once: this call cannot be remembered)")
				a = permission.AllowOnce
			}
			if err := answer(req, a); err != nil && !errors.Is(err, permission.ErrNotPending) && !errors.Is(err, permission.ErrAnswered) {
				// The rule could not be written: the user still allowed this call.
				fmt.Fprintf(errOut, "  %s; allowed once\n", termText(err.Error()))
				answer(req, permission.AllowOnce)
			}
		}()
	}
	return prompt, feed.stop
}

// decisions are the approvals the log says were decided, by anyone, and the one whose prompt
// is on the terminal now.
type decisions struct {
	mu      sync.Mutex
	done    map[string]chan struct{}
	showing string
}

func (d *decisions) of(callID string) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.chanLocked(callID)
}

func (d *decisions) chanLocked(callID string) chan struct{} {
	if d.done == nil {
		d.done = map[string]chan struct{}{}
	}
	ch := d.done[callID]
	if ch == nil {
		ch = make(chan struct{})
		d.done[callID] = ch
	}
	return ch
}

// showWith prints callID's prompt and marks it showing, unless it was decided already; a
// decision made meanwhile waits for both, so its printer knows to end the prompt's line (it
// once came between the two: the decision was printed on the prompt's line).
func (d *decisions) showWith(callID string, print func()) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	select {
	case <-d.chanLocked(callID):
		return false
	default:
	}
	print()
	d.showing = callID
	return true
}

// hide notes that no prompt is waiting on the terminal (its line was answered).
func (d *decisions) hide() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.showing = ""
}

// decide records that callID was decided, and says whether its prompt was waiting on the
// terminal (its line is then left open, for the caller to end).
func (d *decisions) decide(callID string) (wasShowing bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch := d.chanLocked(callID)
	select {
	case <-ch:
		return false
	default:
		close(ch)
	}
	if d.showing == callID {
		d.showing = ""
		return true
	}
	return false
}

// lineFeed reads the prompts' input one line at a time in the background, so a prompt can
// stop waiting without taking a line meant for the next one. The end of the input is "".
type lineFeed struct {
	in      *bufio.Reader
	once    sync.Once
	ch      chan string
	stopped chan struct{}
	stop    func()
}

func newLineFeed(in io.Reader) *lineFeed {
	f := &lineFeed{in: bufio.NewReader(in), ch: make(chan string), stopped: make(chan struct{})}
	f.stop = sync.OnceFunc(func() { close(f.stopped) })
	return f
}

// lines starts reading on the first prompt (a run that asks nothing never reads its input).
func (f *lineFeed) lines() <-chan string {
	f.once.Do(func() {
		go func() {
			for {
				line, err := f.in.ReadString('\n')
				if line == "" && err != nil {
					close(f.ch) // the end of the input: every later prompt reads ""
					return
				}
				select {
				case f.ch <- line:
				case <-f.stopped:
					return
				}
			}
		}()
	})
	return f.ch
}

// terminalAnswer reads a line typed at the approval prompt.
func terminalAnswer(line string) permission.Answer {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return permission.AllowOnce
	case "s", "session":
		return permission.AllowSession
	case "a", "always":
		return permission.AlwaysWorkspace
	}
	return permission.DenyOnce
}

// isTerminal reports whether r is a character device (a terminal), which echoes what is typed.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// terminalAsker answers ask_human on the terminal, between the approval prompts: the question
// and its options on errOut, one line of input as the answer (an option's number picks it).
type terminalAsker struct {
	in     *terminalInput
	errOut io.Writer
}

func (a terminalAsker) Ask(ctx context.Context, q tools.Question) (string, error) {
	a.in.mu.Lock()
	defer a.in.mu.Unlock()
	fmt.Fprintf(a.errOut, "\nThe agent asks: %s\n", termText(q.Text))
	for i, o := range q.Options {
		fmt.Fprintf(a.errOut, "  %d. %s\n", i+1, termLine(o))
	}
	fmt.Fprint(a.errOut, "  answer: ")
	select {
	case line, ok := <-a.in.feed.lines():
		if !ok {
			fmt.Fprintln(a.errOut, "(no input)")
			return "", headless.ErrNobodyToAnswer
		}
		line = strings.TrimSpace(line)
		if a.in.echo {
			fmt.Fprintln(a.errOut, termLine(line))
		}
		if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(q.Options) {
			line = q.Options[n-1]
		}
		return line, nil
	case <-a.in.feed.stopped:
		return "", headless.ErrNobodyToAnswer
	case <-ctx.Done():
		fmt.Fprintln(a.errOut)
		return "", ctx.Err()
	}
}
