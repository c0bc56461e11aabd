package slack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/tofu-research/tofu/backend/bridge"
)

// defaultTimeout bounds one Web API call.
const defaultTimeout = 30 * time.Second

// Listen opens the Socket Mode connection and delivers messages and button presses until ctx
// ends. Socket Mode keeps no position and does not replay what was sent while no socket was
// open: once connected, Listen reads what is newer than cursor (the last message handled in
// each conversation) in those conversations' history, so messages sent while Tofu was closed
// are answered (catchup.go). The SDK reconnects by itself when Slack asks (a disconnect
// envelope, e.g. refresh_requested) or the socket drops; a failure to open a new one returns,
// so the bridge says it is offline and retries with its own backoff. Every envelope is
// acknowledged once delivered: Slack sends again one that is not.
func (p *Platform) Listen(ctx context.Context, cursor string, deliver func(bridge.Incoming) error) error {
	if _, err := p.Check(ctx); err != nil {
		return err
	}
	p.resume(cursor)
	caughtUp := false
	ctx, cancel := context.WithCancel(ctx)
	sm := socketmode.New(p.api, socketmode.OptionLog(log.New(io.Discard, "", 0)))
	ran := make(chan error, 1)
	go func() { ran <- sm.RunContext(ctx) }()
	defer func() {
		cancel()
		<-ran
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ran:
			ran <- err // for the deferred wait
			if err == nil {
				err = errors.New("the socket closed")
			}
			return wrap("socket mode", err)
		case ev := <-sm.Events:
			if ev.Type == socketmode.EventTypeConnected {
				if err := deliver(bridge.Incoming{}); err != nil {
					return err
				}
				if !caughtUp {
					caughtUp = true
					if err := p.catchUp(ctx, deliver); err != nil {
						return err
					}
				}
				continue
			}
			if err := p.event(ctx, sm, ev, deliver); err != nil {
				return err
			}
		}
	}
}

// event handles one of the socket's events other than a connection reached: a failure to
// connect returns, a message or a press is delivered and then acknowledged.
func (p *Platform) event(ctx context.Context, sm *socketmode.Client, ev socketmode.Event, deliver func(bridge.Incoming) error) error {
	switch ev.Type {
	case socketmode.EventTypeConnectionError:
		if e, ok := ev.Data.(*slack.ConnectionErrorEvent); ok && e.ErrorObj != nil {
			return wrap("apps.connections.open", e.ErrorObj)
		}
		return errors.New("slack: socket mode: the connection failed")
	case socketmode.EventTypeInvalidAuth:
		return errors.New("slack: socket mode: the app-level token was refused (invalid_auth)")
	}
	if ev.Request == nil || ev.Request.EnvelopeID == "" {
		return nil // hello, disconnect and the client's own events need no answer
	}
	var (
		m  bridge.Incoming
		ok bool
	)
	switch data := ev.Data.(type) {
	case slackevents.EventsAPIEvent:
		m, ok = p.message(data)
	case slack.InteractionCallback:
		m, ok = press(data)
	case slack.SlashCommand:
		m, ok = p.command(data)
	}
	if ok {
		if err := deliver(m); err != nil {
			return err
		}
	}
	if err := sm.AckCtx(ctx, ev.Request.EnvelopeID, nil); err != nil {
		return fmt.Errorf("slack: acknowledging envelope %s: %w", ev.Request.EnvelopeID, err)
	}
	return nil
}

// message reads a message event.
func (p *Platform) message(e slackevents.EventsAPIEvent) (bridge.Incoming, bool) {
	msg, ok := e.InnerEvent.Data.(*slackevents.MessageEvent)
	if !ok {
		return bridge.Incoming{}, false
	}
	var files []slack.File
	if msg.Message != nil {
		files = msg.Message.Files
	}
	return p.incoming(post{channel: msg.Channel, direct: msg.ChannelType == "im", user: msg.User, bot: msg.BotID,
		subtype: msg.SubType, text: msg.Text, ts: msg.TimeStamp, thread: msg.ThreadTimeStamp, files: files})
}

// post is a message as an event or the history shows it.
type post struct {
	channel                              string
	direct                               bool // a direct message
	user, bot, subtype, text, ts, thread string
	files                                []slack.File // a file_share's files
}

// incoming reads a person's new message (no edits, deletions, joins or bots) as the bridge's
// Incoming, a mention of the bot in front left out, with its files (fetched when the bridge
// asks); its cursor is the position with this message handled.
func (p *Platform) incoming(m post) (bridge.Incoming, bool) {
	self := p.Self()
	m.text = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m.text), "<@"+self+">"))
	if m.bot != "" || m.user == "" || (m.text == "" && len(m.files) == 0) || m.user == self {
		return bridge.Incoming{}, false
	}
	switch m.subtype {
	case "", "thread_broadcast", "file_share":
	default:
		return bridge.Incoming{}, false
	}
	chat := chatOf(m.channel, m.direct, m.thread, m.ts)
	in := bridge.Incoming{ID: m.channel + "/" + m.ts, Chat: chat, User: m.user, Text: m.text, Time: tsTime(m.ts),
		Cursor: p.advance(chat, m.ts)}
	if len(m.files) > 0 {
		in.Files = p.files(m.files)
	}
	return in, true
}

// command reads a slash command as the bridge's command: "/tofu stop" (or "/stop", when the
// app registers it) is "/stop"; "/tofu" alone is "/status". Slack sends a message starting
// with "/" as a command, never as a message. A command in a direct message is that
// conversation's; in a channel (its payload names no thread) it is the thread there the bridge
// last took a message of.
func (p *Platform) command(c slack.SlashCommand) (bridge.Incoming, bool) {
	text := strings.TrimSpace(c.Text)
	switch {
	case c.Command != "/tofu":
		text = strings.TrimSpace(c.Command + " " + text)
	case text == "":
		text = "/status"
	default:
		text = "/" + text
	}
	chat := c.ChannelID
	if !strings.HasPrefix(chat, "D") {
		chat = p.lastThread(c.ChannelID)
	}
	if c.UserID == "" || chat == "" {
		return bridge.Incoming{}, false
	}
	return bridge.Incoming{ID: "command/" + c.TriggerID, Chat: chat, User: c.UserID, Text: text}, true
}

// press reads a block_actions interaction: a press of an approval's button.
func press(cb slack.InteractionCallback) (bridge.Incoming, bool) {
	if cb.Type != slack.InteractionTypeBlockActions || len(cb.ActionCallback.BlockActions) == 0 || cb.User.ID == "" {
		return bridge.Incoming{}, false
	}
	a := cb.ActionCallback.BlockActions[0]
	answer, call, _ := strings.Cut(a.Value, ":")
	if (answer != "yes" && answer != "no") || call == "" {
		return bridge.Incoming{}, false
	}
	channel := cb.Container.ChannelID
	if channel == "" {
		channel = cb.Channel.ID
	}
	thread := cb.Container.ThreadTs
	if thread == "" {
		thread = cb.Message.ThreadTimestamp
	}
	return bridge.Incoming{ID: "press/" + channel + "/" + a.ActionTs + "/" + cb.User.ID, Chat: chatOf(channel, strings.HasPrefix(channel, "D"), thread, cb.Container.MessageTs),
		User: cb.User.ID, Press: answer, Call: call, Time: tsTime(a.ActionTs)}, true
}

// chatOf is a conversation's id: a direct message's channel ("D…"), or a channel's thread
// ("C…:ts of the thread's first message"; a message outside a thread starts one).
func chatOf(channel string, direct bool, thread, ts string) string {
	if direct {
		return channel
	}
	if thread == "" {
		thread = ts
	}
	return channel + ":" + thread
}

// tsTime reads a Slack timestamp ("1700000000.000100").
func tsTime(ts string) time.Time {
	sec, _, _ := strings.Cut(ts, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(n, 0)
}
