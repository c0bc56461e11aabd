package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// Options configure one bridge: a platform, who may talk to it, where its conversations work.
type Options struct {
	// Name keys the bridge's records ("matrix", "work-slack").
	Name     string
	Platform Platform
	Store    *store.Store
	Runner   *session.Runner
	// Allowed are the user ids that may talk to Tofu; everyone else is refused once, politely.
	Allowed []string
	// Workspace is where every conversation's agent works; "" gives each conversation a folder
	// of its own under Workspaces.
	Workspace, Workspaces string
	// Approve is a new conversation's approval mode (permission.Mode; "": ask, through the chat).
	Approve string
	// ToolsOn are the families a bridge conversation may use of those off by default there:
	// web, browser and desktop stay off unless listed.
	ToolsOn []store.ToolFamily
	// Model is the model turns use ("": the settings' main model).
	Model string
	// EditEvery is how often a streaming reply is edited (0: every 2 s, well under the
	// platforms' limits on edits).
	EditEvery time.Duration
	// Logf records refusals and failures (nil: the standard logger's stderr).
	Logf func(format string, args ...any)
	// FirstBackoff is the first wait before reaching the platform again after a failure
	// (0: firstBackoff); it doubles up to maxBackoff.
	FirstBackoff time.Duration
}

// offByDefault are the families a bridge conversation does not get unless turned on: what
// reaches the web, the user's browser or the user's desktop from a phone is the user's choice.
var offByDefault = []store.ToolFamily{store.FamilyWeb, store.FamilyBrowser, store.FamilyDesktop}

// Bridge answers one platform's conversations with Tofu's turns.
type Bridge struct {
	o   Options
	rec records

	recMu sync.Mutex // serializes changes of conversation records (update)

	mu      sync.Mutex
	ctx     context.Context // the bridge's lifetime; turns run under it
	turns   map[string]*running
	refused map[string]bool
	// refusedIDs are the ids of the strangers' messages refused since the start (at most
	// maxRefusedIDs): one the platform delivers again is not logged again.
	refusedIDs map[string]bool
	health     health
}

// running is a conversation's turn in flight.
type running struct {
	session string
	turn    *session.Turn
	reply   *reply
	started time.Time
	// ask is the approval it waits for (nil: none).
	ask *store.Approval
}

// New checks o and returns the bridge.
func New(o Options) (*Bridge, error) {
	if !validName(o.Name) {
		return nil, fmt.Errorf("bridge name %q: use letters, digits and dashes", o.Name)
	}
	if o.Platform == nil || o.Store == nil || o.Runner == nil {
		return nil, errors.New("a bridge needs a platform, the store and the runner")
	}
	if len(o.Allowed) == 0 {
		return nil, fmt.Errorf("bridge %s: no allowed user ids: nobody could talk to it", o.Name)
	}
	if o.Workspace == "" && o.Workspaces == "" {
		return nil, fmt.Errorf("bridge %s: no workspace for its conversations", o.Name)
	}
	if o.Approve == "" {
		o.Approve = string(permission.ModeAsk)
	}
	if _, err := permission.ParseMode(o.Approve); err != nil {
		return nil, fmt.Errorf("bridge %s: %w", o.Name, err)
	}
	if o.FirstBackoff <= 0 {
		o.FirstBackoff = firstBackoff
	}
	if o.EditEvery <= 0 {
		o.EditEvery = 2 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "bridge: "+format+"\n", args...) }
	}
	return &Bridge{o: o, rec: records{st: o.Store, name: o.Name}, turns: map[string]*running{}, refused: map[string]bool{}, refusedIDs: map[string]bool{}}, nil
}

// Run answers messages until ctx ends. It first finishes the messages a previous run took
// but did not answer (Tofu closed mid-turn), then listens from where it stopped. A turn cut
// by ctx ending stays pending for the next Run: the chat gets its answer once.
func (b *Bridge) Run(ctx context.Context) error {
	b.mu.Lock()
	b.ctx = ctx
	b.mu.Unlock()
	defer b.waitTurns()
	state, err := b.rec.state()
	if err != nil {
		return err
	}
	for _, u := range state.Refused {
		b.refused[u] = true
	}
	if err := b.resume(ctx); err != nil {
		return err
	}
	return b.listen(ctx)
}

// waitTurns waits for the turns the bridge started to record where they stopped.
func (b *Bridge) waitTurns() {
	b.mu.Lock()
	var ts []*session.Turn
	for _, r := range b.turns {
		if r.turn != nil {
			ts = append(ts, r.turn)
		}
	}
	b.mu.Unlock()
	for _, t := range ts {
		t.Wait()
	}
}

// deliver handles one incoming message, then moves the cursor past it. An Incoming with no id
// says the platform is reached (and where its stream is).
func (b *Bridge) deliver(ctx context.Context, m Incoming) error {
	b.health.connected()
	if m.ID != "" {
		if err := b.handle(ctx, m); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			b.o.Logf("%s: message %s in %s: %v", b.o.Name, m.ID, m.Chat, err)
			b.say(ctx, m.Chat, "Tofu could not take this message: "+err.Error())
		}
	}
	if m.Cursor == "" {
		return nil
	}
	state, err := b.rec.state()
	if err != nil {
		return err
	}
	state.Cursor = m.Cursor
	return b.rec.putState(state)
}

func (b *Bridge) handle(ctx context.Context, m Incoming) error {
	if m.User == b.o.Platform.Self() || (m.Text == "" && m.Press == "" && len(m.Files) == 0) {
		return nil
	}
	if !slices.Contains(b.o.Allowed, m.User) {
		return b.refuse(ctx, m)
	}
	conv, err := b.conversation(m.Chat)
	if err != nil {
		return err
	}
	if conv.handled(m.ID) {
		return nil // delivered again after a restart
	}
	text := strings.TrimSpace(m.Text)
	switch {
	case m.Press != "":
		b.pressed(ctx, m.Chat, m.Press, m.Call)
	case strings.HasPrefix(text, "/") && len(m.Files) == 0:
		if !b.command(ctx, &conv, text) {
			b.say(ctx, m.Chat, "Unknown command "+strings.Fields(text)[0]+": /stop, /new, /status and /file PATH are the commands.")
		}
	case b.asking(m.Chat) != nil:
		b.replied(ctx, m.Chat, text)
	case b.busy(m.Chat):
		b.say(ctx, m.Chat, "Tofu is still answering your last message: wait for it, or /stop it.")
	default:
		return b.begin(ctx, conv, m)
	}
	return b.update(m.Chat, func(c *Conversation) { c.markHandled(m.ID) })
}

// update changes a conversation's record (read, change, write under the bridge's lock: a
// streaming reply records its message id while messages are handled).
func (b *Bridge) update(chat string, fn func(*Conversation)) error {
	b.recMu.Lock()
	defer b.recMu.Unlock()
	c, err := b.conversation(chat)
	if err != nil {
		return err
	}
	fn(&c)
	return b.rec.putConversation(c)
}

// maxRefusedIDs bounds the refused message ids kept in memory (a stranger cannot grow it).
const maxRefusedIDs = 1000

// refuse tells a user who is not on the list, once, that this Tofu is not theirs, and logs it.
func (b *Bridge) refuse(ctx context.Context, m Incoming) error {
	b.mu.Lock()
	again := m.ID != "" && b.refusedIDs[m.ID]
	if m.ID != "" {
		if len(b.refusedIDs) >= maxRefusedIDs {
			clear(b.refusedIDs)
		}
		b.refusedIDs[m.ID] = true
	}
	told := b.refused[m.User]
	b.refused[m.User] = true
	b.mu.Unlock()
	if again {
		return nil
	}
	b.o.Logf("%s: refused a message from %s in %s: not an allowed user", b.o.Name, m.User, m.Chat)
	if told {
		return nil
	}
	state, err := b.rec.state()
	if err != nil {
		return err
	}
	state.Refused = append(state.Refused, m.User)
	if err := b.rec.putState(state); err != nil {
		return err
	}
	b.say(ctx, m.Chat, "Sorry, this Tofu answers only its owner. Your message was not read.")
	return nil
}

// conversation is the chat's record, made with the bridge's defaults the first time.
func (b *Bridge) conversation(chat string) (Conversation, error) {
	c, ok, err := b.rec.conversation(chat)
	if err != nil || ok {
		return c, err
	}
	c = Conversation{Chat: chat, Workspace: b.o.Workspace, Approve: b.o.Approve}
	if c.Workspace == "" {
		c.Workspace = filepath.Join(b.o.Workspaces, b.o.Name, folderName(chat))
	}
	return c, nil
}

// folderName makes a chat id a folder name.
func folderName(chat string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == 0 {
			return '_'
		}
		return r
	}, chat)
}

// say sends a short note; a failure is only logged (the conversation goes on).
func (b *Bridge) say(ctx context.Context, chat, text string) {
	if _, err := b.send(ctx, chat, Outgoing{Text: text}); err != nil && ctx.Err() == nil {
		b.o.Logf("%s: send to %s: %v", b.o.Name, chat, err)
	}
}

func (b *Bridge) busy(chat string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.turns[chat] != nil
}
