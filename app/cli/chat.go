package cli

import (
	"fmt"
	"io"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/store"
)

func newChatCmd() *cobra.Command {
	var model, session, baseURL string
	cmd := &cobra.Command{
		Use:   `chat "prompt"`,
		Short: "Send one message and stream the reply to the terminal (recorded as a conversation)",
		Long: "Send one message and stream the reply to stdout. The exchange is recorded like any\n" +
			"conversation; --session continues an existing one. A prompt of \"-\" reads stdin.\n" +
			"While the window or `tofu serve` runs, the message is sent through it.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt := args[0]
			if prompt == "-" {
				b, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return fmt.Errorf("read prompt from stdin: %w", err)
				}
				prompt = string(b)
			}
			keepRunningWhenOutputCloses()
			o := ChatOptions{Prompt: prompt, Model: model, Session: session, BaseURL: baseURL}
			st, inst, err := attach()
			if err != nil {
				return err
			}
			if inst != nil {
				return forwardChat(inst, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			defer st.Close()
			return Chat(st, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&model, "model", "m", "", "model name (default: the default model in settings, else the first installed)")
	cmd.Flags().StringVarP(&session, "session", "s", "", "continue this conversation id instead of starting one")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "Ollama base URL for this call (default: settings, OLLAMA_HOST, http://127.0.0.1:11434)")
	return cmd
}

// ChatOptions are the inputs of one `tofu chat` (backend/headless).
type ChatOptions = headless.ChatOptions

// terminalEmitter prints one session's streamed text as it arrives and signals the end; the
// notes tofu run prints (a retried attempt, a fallback) go to errOut.
type terminalEmitter struct {
	session atomic.Pointer[string] // set once the conversation exists
	out     io.Writer
	errOut  io.Writer
	ended   chan struct{}

	mu      sync.Mutex // deltas, resets and events come from different goroutines
	carry   runeCarry  // the reply is escaped for the terminal (termsafe.go)
	midLine bool       // the reply's last line is not ended yet
	failure string     // why the turn stopped, when its log could not say it
}

func (t *terminalEmitter) Emit(topic string, data any) {
	msg, ok := data.(app.SessionMessage)
	sid := t.session.Load()
	if !ok || sid == nil || topic != app.SessionTopic(*sid) {
		return
	}
	if msg.Kind == app.MessageStream && msg.State == app.StreamEnded {
		t.mu.Lock()
		io.WriteString(t.out, t.carry.flush())
		t.failure = msg.Error
		t.mu.Unlock()
		close(t.ended)
		return
	}
	t.show(msg)
}

// show writes a message of the reply: its text on out, a retried attempt or a fallback as a
// note on errOut. The forwarded chat shows what the running Tofu sends with it too.
func (t *terminalEmitter) show(msg app.SessionMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case msg.Kind == app.MessageDelta && msg.Text != "":
		io.WriteString(t.out, t.carry.next(msg.Text))
		t.midLine = !strings.HasSuffix(msg.Text, "\n")
	case msg.Kind == app.MessageReset:
		// The attempt's text above is void: the reply starts again on its own line.
		t.note("[connection dropped, retrying: %s]", termText(msg.Text))
	case msg.Kind == app.MessageEvent:
		if ev, ok := msg.Event.(store.Event); ok && ev.Type == store.EventFallback {
			var f store.Fallback
			if ev.Decode(&f) == nil {
				t.note("[%s]", termLine(f.Notice()))
			}
		}
	case msg.Kind == app.MessageStream && msg.State == app.StreamEnded:
		io.WriteString(t.out, t.carry.flush())
	}
}

// endLine ends the reply's last line, if it is not ended.
func (t *terminalEmitter) endLine() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.midLine {
		fmt.Fprintln(t.out)
		t.midLine = false
	}
}

// note ends the reply's line on out, then writes a note on errOut (t.mu held).
func (t *terminalEmitter) note(format string, args ...any) {
	if t.midLine {
		fmt.Fprintln(t.out, t.carry.flush())
		t.midLine = false
	}
	fmt.Fprintf(t.errOut, format+"\n", args...)
}

// Chat sends one message through the same ChatService the window uses and streams the reply.
func Chat(st *store.Store, o ChatOptions, out, errOut io.Writer) error {
	// The emitter learns the session once there is one: a conversation is created only when
	// its message can be sent (a model server that is down leaves no empty conversation).
	term := &terminalEmitter{out: out, errOut: errOut, ended: make(chan struct{})}
	var factory app.ProviderFactory
	if o.BaseURL != "" {
		factory = func(cfg config.Config, keys gateway.Keys) (llm.Provider, error) {
			cfg.Providers = append([]config.Provider(nil), cfg.Providers...)
			cfg.Providers[0].BaseURL = o.BaseURL
			return app.GatewayFactory(cfg, keys)
		}
	}
	a, err := newApp(st, term, factory)
	if err != nil {
		return err
	}
	defer a.Close()

	sessionID, before, err := termChat(a, term, o)
	if err != nil {
		return err
	}
	<-term.ended
	term.endLine()
	if err := headless.ChatOutcome(st, sessionID, before, term.failure); err != nil {
		return err
	}
	fmt.Fprintf(errOut, "(conversation %s)\n", sessionID)
	return nil
}

// termChat checks o and sends it with term following the conversation (it says a startup
// fallback on its errOut): the conversation and how many events it held before the message.
func termChat(a *app.App, term *terminalEmitter, o ChatOptions) (sid string, before uint64, err error) {
	model, err := headless.CheckChat(o, a.Models.Status)
	if err != nil {
		return "", 0, err
	}
	_, err = headless.SendChat(a, o, model, func(s string, b uint64, notice string) {
		term.session.Store(&s)
		sid, before = s, b
		if notice != "" {
			fmt.Fprintf(term.errOut, "[%s]\n", termLine(notice))
		}
	})
	return sid, before, err
}

// keepRunningWhenOutputCloses makes a write to a closed stdout or stderr fail instead of
// killing the process (SIGPIPE): `tofu chat "…" | head -1` still records the whole reply (it
// recorded only the user message).
func keepRunningWhenOutputCloses() { signal.Ignore(syscall.SIGPIPE) }
