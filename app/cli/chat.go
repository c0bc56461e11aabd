package cli

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/config"
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
			"conversation; --session continues an existing one. A prompt of \"-\" reads stdin.",
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
			st, err := openStore()
			if err != nil {
				return err
			}
			defer st.Close()
			return Chat(st, ChatOptions{Prompt: prompt, Model: model, Session: session, BaseURL: baseURL},
				cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&model, "model", "m", "", "model name (default: the default model in settings, else the first installed)")
	cmd.Flags().StringVarP(&session, "session", "s", "", "continue this conversation id instead of starting one")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "Ollama base URL for this call (default: settings, OLLAMA_HOST, http://127.0.0.1:11434)")
	return cmd
}

// ChatOptions are the inputs of one `tofu chat`.
type ChatOptions struct {
	Prompt, Model, Session, BaseURL string
}

// terminalEmitter prints one session's streamed text as it arrives and signals the end.
type terminalEmitter struct {
	session atomic.Pointer[string] // set once the conversation exists
	out     io.Writer
	ended   chan struct{}
	carry   runeCarry // the reply is escaped for the terminal (termsafe.go)
	failure string    // why the turn stopped, when its log could not say it
}

func (t *terminalEmitter) Emit(topic string, data any) {
	msg, ok := data.(app.SessionMessage)
	sid := t.session.Load()
	if !ok || sid == nil || topic != app.SessionTopic(*sid) {
		return
	}
	switch {
	case msg.Kind == "delta":
		io.WriteString(t.out, t.carry.next(msg.Text))
	case msg.Kind == app.MessageStream && msg.State == app.StreamEnded:
		io.WriteString(t.out, t.carry.flush())
		t.failure = msg.Error
		close(t.ended)
	}
}

// Chat sends one message through the same ChatService the window uses and streams the reply.
func Chat(st *store.Store, o ChatOptions, out, errOut io.Writer) error {
	// The emitter learns the session once there is one: a conversation is created only when
	// its message can be sent (a model server that is down leaves no empty conversation).
	term := &terminalEmitter{out: out, ended: make(chan struct{})}
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

	model := o.Model
	var switched *store.Fallback
	if model == "" {
		status := a.Models.Status()
		if status.Error != nil && len(status.Models) == 0 {
			return status.Error
		}
		model, switched = status.DefaultModel, status.Switched
	}
	sessionID := o.Session
	if sessionID == "" {
		info, err := st.CreateSession("")
		if err != nil {
			return err
		}
		sessionID = info.ID
	}
	term.session.Store(&sessionID)
	before, err := st.Session(sessionID)
	if err != nil {
		return fmt.Errorf("conversation %s: %w", sessionID, err)
	}
	if switched != nil {
		// Another model than the main one answers: the log and the terminal say so.
		if _, err := st.Append(sessionID, store.EventFallback, *switched); err != nil {
			return err
		}
		fmt.Fprintf(errOut, "[%s]\n", termLine(switched.Notice()))
	}
	if err := a.Chat.Send(sessionID, o.Prompt, model); err != nil {
		return err
	}
	<-term.ended
	fmt.Fprintln(out)
	if term.failure != "" {
		return errors.New(term.failure)
	}

	// The outcome is in the log: report an error event written by this turn.
	events, err := st.EventsFrom(sessionID, before.Events+1)
	if err != nil {
		return err
	}
	for _, ev := range events {
		if ev.Type != store.EventError {
			continue
		}
		var e store.ErrorInfo
		if err := ev.Decode(&e); err != nil {
			return err
		}
		return &llm.Error{Kind: llm.ErrorKind(e.Kind), Message: e.Message, Hint: e.Hint}
	}
	fmt.Fprintf(errOut, "(conversation %s)\n", sessionID)
	return nil
}
