package feishu

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"

	"github.com/tofu-research/tofu/backend/bridge"
)

// maxKnown bounds the conversations the cursor remembers (the most recent): each direct
// chat is one history call when the bridge connects.
const maxKnown = 50

// resume reads the cursor: each conversation's last delivered message's create_time in
// milliseconds ({"oc_…": 1700000000123}). A cursor it cannot read starts from nothing known.
func (p *Platform) resume(cursor string) {
	seen := map[string]int64{}
	if cursor != "" && json.Unmarshal([]byte(cursor), &seen) != nil {
		seen = map[string]int64{}
	}
	p.mu.Lock()
	p.seen = seen
	p.mu.Unlock()
}

// advance records a message of ms in chat as delivered and returns the cursor that says so.
func (p *Platform) advance(chat string, ms int64) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[string]int64{}
	}
	if ms > p.seen[chat] {
		p.seen[chat] = ms
	}
	for len(p.seen) > maxKnown {
		oldest := slices.MinFunc(slices.Collect(maps.Keys(p.seen)), func(a, b string) int { return int(p.seen[a] - p.seen[b]) })
		delete(p.seen, oldest)
	}
	b, _ := json.Marshal(p.seen)
	return string(b)
}

// directChats are the direct chats the cursor knows, and the time of the last message
// delivered in each.
func (p *Platform) directChats() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int64{}
	for chat, ms := range p.seen {
		if !strings.Contains(chat, ":") {
			out[chat] = ms
		}
	}
	return out
}

// catchUp delivers what was said in the known direct chats after the last message delivered
// there (im/v1/messages list, oldest first): the messages sent while Tofu was closed, which
// the long connection does not bring. A message also pushed as an event is one message: the
// bridge knows its id.
func (p *Platform) catchUp(ctx context.Context, deliver func(bridge.Incoming) error) error {
	for chat, since := range p.directChats() {
		page := ""
		for {
			req := larkim.NewListMessageReqBuilder().ContainerIdType("chat").ContainerId(chat).
				StartTime(strconv.FormatInt(since/1000, 10)).SortType("ByCreateTimeAsc").PageSize(50)
			if page != "" {
				req.PageToken(page)
			}
			resp, err := p.api.Im.V1.Message.List(ctx, req.Build())
			if err != nil {
				return fmt.Errorf("feishu: read the history of %s: %w", chat, err)
			}
			if err := failure("read the history", resp.ApiResp, resp.Code, resp.Msg); err != nil {
				return err
			}
			if resp.Data == nil {
				break
			}
			for _, m := range resp.Data.Items {
				in, ok := p.fromHistory(chat, since, m)
				if !ok {
					continue
				}
				if err := deliver(in); err != nil {
					return err
				}
			}
			if resp.Data.HasMore == nil || !*resp.Data.HasMore || str(resp.Data.PageToken) == "" {
				break
			}
			page = str(resp.Data.PageToken)
		}
	}
	return nil
}

// fromHistory reads a message of a direct chat's history newer than since.
func (p *Platform) fromHistory(chat string, since int64, m *larkim.Message) (bridge.Incoming, bool) {
	if m == nil || m.Sender == nil || m.Body == nil || (m.Deleted != nil && *m.Deleted) || str(m.Sender.IdType) != "open_id" {
		return bridge.Incoming{}, false
	}
	if ms, err := strconv.ParseInt(str(m.CreateTime), 10, 64); err != nil || ms <= since {
		return bridge.Incoming{}, false
	}
	var mentions []string
	for _, at := range m.Mentions {
		if at != nil {
			mentions = append(mentions, str(at.Key))
		}
	}
	return p.incoming(post{id: str(m.MessageId), chat: chat, user: str(m.Sender.Id), userType: str(m.Sender.SenderType),
		kind: str(m.MsgType), content: str(m.Body.Content), created: str(m.CreateTime), mentions: mentions})
}
