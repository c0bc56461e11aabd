// Package matrix is the bridge's Matrix platform (mautrix): a sync loop the client opens to its
// homeserver, so no public address is needed; rooms and direct messages are conversations.
package matrix

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/tofu-research/tofu/backend/bridge"
)

// Options say which homeserver and account the bridge speaks as.
type Options struct {
	Homeserver string // https://matrix.example.org
	UserID     string // @tofu:example.org
	Token      string // the account's access token (kept in the keyring)
	// PollTimeout is how long one sync waits for news (0: 30 s).
	PollTimeout time.Duration
}

// Platform is a Matrix account as a bridge platform.
type Platform struct {
	cli     *mautrix.Client
	timeout time.Duration
}

// New returns the platform for o; nothing is sent until Listen or Send.
func New(o Options) (*Platform, error) {
	if o.Homeserver == "" || o.UserID == "" || o.Token == "" {
		return nil, errors.New("matrix: the homeserver, the bot's user id and its access token are all needed")
	}
	cli, err := mautrix.NewClient(o.Homeserver, id.UserID(o.UserID), o.Token)
	if err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	if o.PollTimeout <= 0 {
		o.PollTimeout = 30 * time.Second
	}
	return &Platform{cli: cli, timeout: o.PollTimeout}, nil
}

// Name is "matrix".
func (p *Platform) Name() string { return "matrix" }

// Self is the bot's user id.
func (p *Platform) Self() string { return string(p.cli.UserID) }

// Check asks the homeserver who the token belongs to (tofu bridge test).
func (p *Platform) Check(ctx context.Context) (string, error) {
	who, err := p.cli.Whoami(ctx)
	if err != nil {
		return "", fmt.Errorf("matrix: %w", err)
	}
	if who.UserID != p.cli.UserID {
		return "", fmt.Errorf("matrix: the token belongs to %s, not %s", who.UserID, p.cli.UserID)
	}
	return string(who.UserID), nil
}

// Listen syncs from cursor (a next_batch token; "": from now, skipping the history), joins the
// rooms it is invited to and delivers their text messages in order. The homeserver keeps the
// history: what arrived while Tofu was closed comes with the next sync.
func (p *Platform) Listen(ctx context.Context, cursor string, deliver func(bridge.Incoming) error) error {
	since := cursor
	if since == "" {
		// From now: one sync without waiting gives the position; what came before is not news.
		resp, err := p.cli.SyncRequest(ctx, 0, "", "", false, event.PresenceOffline)
		if err != nil {
			return fmt.Errorf("matrix: sync: %w", err)
		}
		p.join(ctx, resp)
		since = resp.NextBatch
	}
	// Connected (the bridge says so in Settings), and the position kept for a restart.
	if err := deliver(bridge.Incoming{Cursor: since}); err != nil {
		return err
	}
	for {
		resp, err := p.cli.SyncRequest(ctx, int(p.timeout.Milliseconds()), since, "", false, event.PresenceOffline)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("matrix: sync: %w", err)
		}
		p.join(ctx, resp)
		msgs, files := messages(resp)
		for i, m := range msgs {
			if i == len(msgs)-1 {
				m.Cursor = resp.NextBatch
			}
			if f, ok := files[m.ID]; ok {
				m.Files = []bridge.File{p.file(m.Files[0].Name, f)}
			}
			if err := deliver(m); err != nil {
				return err
			}
		}
		since = resp.NextBatch
	}
}

// join accepts the invitations in a sync (an allowed user invites the bot to a room or a DM;
// anyone else's room is joined too, and refused at their first message).
func (p *Platform) join(ctx context.Context, resp *mautrix.RespSync) {
	for room := range resp.Rooms.Invite {
		_, _ = p.cli.JoinRoomByID(ctx, room) // a room that cannot be joined stays an invitation
	}
}

// messages are the messages of a sync's joined rooms, each room's in order, and the files
// they carry by message id (fetched before the message is delivered).
func messages(resp *mautrix.RespSync) ([]bridge.Incoming, map[string]media) {
	var out []bridge.Incoming
	files := map[string]media{}
	for room, joined := range resp.Rooms.Join {
		for _, ev := range joined.Timeline.Events {
			if ev.Type != event.EventMessage {
				continue
			}
			if err := ev.Content.ParseRaw(ev.Type); err != nil && !errors.Is(err, event.ErrContentAlreadyParsed) {
				continue
			}
			msg := ev.Content.AsMessage()
			if msg.RelatesTo != nil && msg.RelatesTo.Type == event.RelReplace {
				continue // an edit is not a new message
			}
			in := bridge.Incoming{ID: string(ev.ID), Chat: string(room), User: string(ev.Sender),
				Text: msg.Body, Time: time.UnixMilli(ev.Timestamp)}
			if name, caption, m, ok := fileOf(msg); ok {
				in.Text, in.Files = caption, []bridge.File{{Name: name}}
				files[in.ID] = m
			}
			out = append(out, in)
		}
	}
	return out, files
}

// Send posts a text message; its transaction id is the outgoing key, so sending it again (a
// restart in between) gives the same event, not a second one.
func (p *Platform) Send(ctx context.Context, chat string, m bridge.Outgoing) (string, error) {
	content := &event.MessageEventContent{MsgType: event.MsgText, Body: m.Text}
	var extra []mautrix.ReqSendEvent
	if m.Key != "" {
		extra = append(extra, mautrix.ReqSendEvent{TransactionID: "tofu-" + m.Key})
	}
	resp, err := p.cli.SendMessageEvent(ctx, id.RoomID(chat), event.EventMessage, content, extra...)
	if err != nil {
		return "", wrap(err)
	}
	return string(resp.EventID), nil
}

// Edit replaces a message's text (an m.replace event).
func (p *Platform) Edit(ctx context.Context, chat, msgID, text string) error {
	content := &event.MessageEventContent{MsgType: event.MsgText, Body: text}
	content.SetEdit(id.EventID(msgID))
	_, err := p.cli.SendMessageEvent(ctx, id.RoomID(chat), event.EventMessage, content)
	return wrap(err)
}

// wrap makes the homeserver's M_LIMIT_EXCEEDED a bridge.RateLimited.
func wrap(err error) error {
	var he mautrix.HTTPError
	if err == nil || !errors.As(err, &he) || he.RespError == nil || he.RespError.ErrCode != mautrix.MLimitExceeded.ErrCode {
		return err
	}
	after := time.Second
	if ms, ok := he.RespError.ExtraData["retry_after_ms"].(float64); ok {
		after = time.Duration(ms) * time.Millisecond
	} else if v, ok := he.RespError.ExtraHeader["Retry-After"]; ok {
		if s, err := strconv.Atoi(v); err == nil {
			after = time.Duration(s) * time.Second
		}
	}
	return &bridge.RateLimited{After: after, Err: err}
}
