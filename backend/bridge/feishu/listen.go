package feishu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"
	larkevent "github.com/larksuite/oapi-sdk-go/v3/event"
	"github.com/larksuite/oapi-sdk-go/v3/event/dispatcher"
	"github.com/larksuite/oapi-sdk-go/v3/event/dispatcher/callback"
	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"
	larkws "github.com/larksuite/oapi-sdk-go/v3/ws"

	"github.com/tofu-research/tofu/backend/bridge"
)

// job is an event the SDK's handlers hand to Listen, which delivers one at a time; the
// handler answers Feishu (the SDK acknowledges the frame) once the bridge has taken it.
type job struct {
	m    bridge.Incoming
	done chan error
}

// Listen opens the SDK's long connection (the SDK fetches an endpoint with the app's id and
// secret, then keeps a websocket, pinging it, and reconnects by itself after a drop, as the
// endpoint's settings say) and delivers text messages, files (file, image, audio and
// media messages: files.go) and card button presses. Feishu keeps
// no stream position: it pushes an event to a connected client and pushes
// it again when the client did not acknowledge it within 3 s. Once connected, Listen reads
// the history of the direct chats the cursor knows (catchup.go): what was sent while Tofu was
// closed is answered when it opens. Listen returns when ctx ends,
// when a reconnect fails (the bridge then retries with its backoff and says it is offline),
// or when deliver fails (that event is not acknowledged: Feishu pushes it again).
func (p *Platform) Listen(outer context.Context, cursor string, deliver func(bridge.Incoming) error) error {
	if _, err := p.Check(outer); err != nil {
		return err
	}
	p.resume(cursor)
	ctx, cancel := context.WithCancel(outer)
	defer cancel()
	jobs := make(chan job)
	hand := func(ctx context.Context, m bridge.Incoming) error {
		j := job{m: m, done: make(chan error, 1)}
		select {
		case jobs <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case err := <-j.done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	events := dispatcher.NewEventDispatcher("", "").
		OnP2MessageReceiveV1(func(ctx context.Context, ev *larkim.P2MessageReceiveV1) error {
			if m, ok := p.message(ev); ok {
				return hand(ctx, m)
			}
			return nil
		}).
		OnP2CardActionTrigger(func(ctx context.Context, ev *callback.CardActionTriggerEvent) (*callback.CardActionTriggerResponse, error) {
			if m, ok := pressed(ev); ok {
				if err := hand(ctx, m); err != nil {
					return nil, err
				}
			}
			return &callback.CardActionTriggerResponse{}, nil
		})
	events.InitConfig(larkevent.WithLogger(sdkLogger{p.o.Logf}), larkevent.WithLogLevel(larkcore.LogLevelWarn))
	failed := make(chan error, 1)
	// Connected (first or again): the bridge says so in Settings.
	ready := func() { _ = hand(ctx, bridge.Incoming{}) }
	cli := larkws.NewClient(p.o.AppID, p.o.AppSecret, larkws.WithDomain(p.base), larkws.WithEventHandler(events),
		larkws.WithHttpClient(p.o.HTTPClient), larkws.WithLogger(sdkLogger{p.o.Logf}), larkws.WithLogLevel(larkcore.LogLevelWarn),
		larkws.WithOnReady(ready), larkws.WithOnReconnected(ready),
		larkws.WithOnError(func(err error) {
			select {
			case failed <- err:
			default:
			}
		}))
	stopped := make(chan error, 1)
	go func() { stopped <- cli.Start(ctx) }()
	caughtUp := false
	for {
		select {
		case j := <-jobs:
			err := deliver(j.m)
			j.done <- err
			if err == nil && j.m.ID == "" && !caughtUp {
				caughtUp = true
				err = p.catchUp(ctx, deliver)
			}
			if err != nil {
				cancel()
				<-stopped
				if outer.Err() != nil {
					return outer.Err()
				}
				return err
			}
		case err := <-failed:
			cancel()
			<-stopped
			if outer.Err() != nil {
				return outer.Err()
			}
			return fmt.Errorf("feishu: long connection: %w", err)
		case err := <-stopped:
			if outer.Err() != nil {
				return outer.Err()
			}
			if err == nil {
				err = errors.New("the long connection closed")
			}
			return fmt.Errorf("feishu: %w", err)
		}
	}
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// message reads an im.message.receive_v1 event: a user's text message, or a file. A direct chat is one
// conversation (its chat_id); in a group each thread is one (chat_id:root message id: the
// message a thread starts from, the message itself when it starts one). Messages of apps
// and bots, the bot's own among them, are not delivered.
func (p *Platform) message(ev *larkim.P2MessageReceiveV1) (bridge.Incoming, bool) {
	if ev == nil || ev.Event == nil || ev.Event.Message == nil || ev.Event.Sender == nil || ev.Event.Sender.SenderId == nil {
		return bridge.Incoming{}, false
	}
	msg, sender := ev.Event.Message, ev.Event.Sender
	var mentions []string
	for _, at := range msg.Mentions {
		if at != nil {
			mentions = append(mentions, str(at.Key))
		}
	}
	return p.incoming(post{id: str(msg.MessageId), chat: str(msg.ChatId), group: str(msg.ChatType) != "p2p", root: str(msg.RootId),
		user: str(sender.SenderId.OpenId), userType: str(sender.SenderType), kind: str(msg.MessageType), content: str(msg.Content),
		created: str(msg.CreateTime), mentions: mentions})
}

// post is a message as an event or the history shows it.
type post struct {
	id, chat, root, user, userType, kind, content, created string
	group                                                  bool
	mentions                                               []string // the @_user_N keys in its text
}

// incoming is a user's message as the bridge takes it; its cursor records it as delivered.
func (p *Platform) incoming(m post) (bridge.Incoming, bool) {
	if m.userType != "user" || m.user == "" || m.user == p.self || m.id == "" || m.chat == "" {
		return bridge.Incoming{}, false
	}
	in := bridge.Incoming{ID: m.id, Chat: m.chat, User: m.user}
	if m.group {
		root := m.root
		if root == "" {
			root = m.id
		}
		in.Chat += ":" + root
	}
	ms, _ := strconv.ParseInt(m.created, 10, 64)
	if ms > 0 {
		in.Time = time.UnixMilli(ms)
	}
	if m.kind == "text" {
		var content struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(m.content), &content); err == nil {
			// Mentions show as @_user_1 keys in the text: the bot's own mention is not the task.
			for _, key := range m.mentions {
				if key != "" {
					content.Text = strings.ReplaceAll(content.Text, key, "")
				}
			}
			in.Text = strings.TrimSpace(content.Text)
		}
	}
	in.Files = p.files(m.id, m.kind, m.content)
	in.Cursor = p.advance(in.Chat, ms)
	return in, true
}

// pressed reads a card.action.trigger callback: a press of an approval card's button, whose
// value the bridge set ({press, call, chat}). The press counts in the chat the card is in.
func pressed(ev *callback.CardActionTriggerEvent) (bridge.Incoming, bool) {
	if ev == nil || ev.Event == nil || ev.Event.Action == nil || ev.Event.Operator == nil {
		return bridge.Incoming{}, false
	}
	value := func(k string) string { s, _ := ev.Event.Action.Value[k].(string); return s }
	m := bridge.Incoming{User: ev.Event.Operator.OpenID, Press: value("press"), Call: value("call"), Chat: value("chat")}
	if ev.EventV2Base != nil && ev.EventV2Base.Header != nil {
		m.ID = "card:" + ev.EventV2Base.Header.EventID
		if ms, err := strconv.ParseInt(ev.EventV2Base.Header.CreateTime, 10, 64); err == nil {
			m.Time = time.UnixMilli(ms)
		}
	}
	if ctx := ev.Event.Context; ctx != nil && ctx.OpenChatID != "" {
		if chatID, _ := splitChat(m.Chat); chatID != ctx.OpenChatID {
			m.Chat = ctx.OpenChatID // a value naming another chat is not believed
		}
	}
	ok := m.ID != "card:" && m.User != "" && m.Chat != "" && (m.Press == "yes" || m.Press == "no")
	return m, ok
}
