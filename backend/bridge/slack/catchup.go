package slack

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/tofu-research/tofu/backend/bridge"
)

// maxKnown bounds the conversations the cursor remembers (the most recent ones): each is one
// history call when the bridge connects.
const maxKnown = 50

// resume reads the cursor: each conversation's last handled message ({"D…": ts, "C…:ts": ts}).
// A cursor it cannot read starts from nothing known.
func (p *Platform) resume(cursor string) {
	seen := map[string]string{}
	if cursor != "" && json.Unmarshal([]byte(cursor), &seen) != nil {
		seen = map[string]string{}
	}
	p.mu.Lock()
	p.seen = seen
	p.mu.Unlock()
}

// advance records ts as delivered in chat and returns the cursor that says so.
func (p *Platform) advance(chat, ts string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[string]string{}
	}
	if after(ts, p.seen[chat]) {
		p.seen[chat] = ts
	}
	for len(p.seen) > maxKnown {
		oldest := ""
		for c, t := range p.seen {
			if oldest == "" || after(p.seen[oldest], t) {
				oldest = c
			}
		}
		delete(p.seen, oldest)
	}
	b, _ := json.Marshal(p.seen)
	return string(b)
}

// forget drops chat from the conversations the cursor knows.
func (p *Platform) forget(chat string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.seen, chat)
}

// lastThread is the conversation of channel's threads with the latest message handled ("":
// none known).
func (p *Platform) lastThread(channel string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	chat, ts := "", ""
	for c, t := range p.seen {
		if strings.HasPrefix(c, channel+":") && after(t, ts) {
			chat, ts = c, t
		}
	}
	return chat
}

// after says whether Slack timestamp a is later than b ("" is before every one).
func after(a, b string) bool {
	if b == "" {
		return a != ""
	}
	as, af, _ := strings.Cut(a, ".")
	bs, bf, _ := strings.Cut(b, ".")
	x, _ := strconv.ParseInt(as, 10, 64)
	y, _ := strconv.ParseInt(bs, 10, 64)
	if x != y {
		return x > y
	}
	u, _ := strconv.ParseInt(af, 10, 64)
	v, _ := strconv.ParseInt(bf, 10, 64)
	return u > v
}

// catchUp delivers, oldest first, the messages of the known conversations newer than their
// last handled one: what was sent while Tofu was closed (conversations.history for a direct
// message, conversations.replies for a thread). A message delivered again later by the socket
// has the same id: the bridge takes it once. A conversation Slack refuses to show is skipped
// and forgotten; a rate limit or a network failure returns (the bridge retries).
func (p *Platform) catchUp(ctx context.Context, deliver func(bridge.Incoming) error) error {
	p.mu.Lock()
	known := make(map[string]string, len(p.seen))
	for c, ts := range p.seen {
		known[c] = ts
	}
	p.mu.Unlock()
	chats := make([]string, 0, len(known))
	for c := range known {
		chats = append(chats, c)
	}
	slices.Sort(chats)
	for _, chat := range chats {
		msgs, err := p.since(ctx, chat, known[chat])
		var refused slack.SlackErrorResponse
		if errors.As(err, &refused) {
			// Slack will not show it (the bot left the channel, a scope is missing): the
			// conversation is forgotten, the others are read.
			p.forget(chat)
			continue
		}
		if err != nil {
			return err
		}
		channel, thread := split(chat)
		for _, m := range msgs {
			if !after(m.Timestamp, known[chat]) {
				continue
			}
			in, ok := p.incoming(post{channel: channel, direct: thread == "", user: m.User, bot: m.BotID, subtype: m.SubType,
				text: m.Text, ts: m.Timestamp, thread: m.ThreadTimestamp, files: m.Files})
			if !ok {
				continue
			}
			if err := deliver(in); err != nil {
				return err
			}
		}
	}
	return nil
}

// since is the conversation's messages after ts, oldest first.
func (p *Platform) since(ctx context.Context, chat, ts string) ([]slack.Message, error) {
	channel, thread := split(chat)
	var out []slack.Message
	cursor := ""
	for {
		var (
			page []slack.Message
			next string
		)
		if thread == "" {
			r, err := p.api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: channel, Oldest: ts, Cursor: cursor, Limit: 200})
			if err != nil {
				return nil, wrap("conversations.history", err)
			}
			page, next = r.Messages, r.ResponseMetaData.NextCursor
		} else {
			msgs, _, n, err := p.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: thread, Oldest: ts, Cursor: cursor, Limit: 200})
			if err != nil {
				return nil, wrap("conversations.replies", err)
			}
			page, next = msgs, n
		}
		out = append(out, page...)
		if next == "" {
			if thread == "" {
				slices.Reverse(out) // the history is newest first
			}
			return out, nil
		}
		cursor = next
	}
}
