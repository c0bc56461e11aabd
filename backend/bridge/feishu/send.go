package feishu

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"

	"github.com/tofu-research/tofu/backend/bridge"
)

// Every message the bot sends is an interactive card, not a text message: Feishu lets an
// app edit a text message at most 20 times (im/v1/messages/:id PUT), too few for an answer
// streamed by edits, while a card sent with "update_multi" is patched in place (PATCH, up
// to 5 times a second per message, for 14 days). Approval questions are cards with two
// buttons whose value ({press, call, chat}) comes back in the card.action.trigger callback.

// cardText is a card element showing text as it is (plain_text: nothing in an answer is read
// as markup, so a model's output cannot mention @all or dress up a link).
type cardText struct {
	Tag  string `json:"tag"`
	Text struct {
		Tag     string `json:"tag"`
		Content string `json:"content"`
	} `json:"text"`
}

type cardButton struct {
	Tag  string `json:"tag"`
	Text struct {
		Tag     string `json:"tag"`
		Content string `json:"content"`
	} `json:"text"`
	Type  string            `json:"type"`
	Value map[string]string `json:"value"`
}

type cardActions struct {
	Tag     string       `json:"tag"`
	Actions []cardButton `json:"actions"`
}

type card struct {
	Config struct {
		UpdateMulti bool `json:"update_multi"` // a shared card: patched for everyone
	} `json:"config"`
	Elements []any `json:"elements"`
}

// maxText is the most of a message's text a card carries, in bytes: a card's request body
// may be 30 KB at most.
const maxText = 24 << 10

// fit cuts text to maxText bytes, saying so.
func fit(text string) string {
	if len(text) <= maxText {
		return text
	}
	cut := text[:maxText-64]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + "\n… (cut: the whole answer is in Tofu)"
}

// cardJSON is the card showing text, with buttons under it (their values name chat).
func cardJSON(chat, text string, buttons []bridge.Button) (string, error) {
	var c card
	c.Config.UpdateMulti = true
	t := cardText{Tag: "div"}
	t.Text.Tag, t.Text.Content = "plain_text", fit(text)
	c.Elements = append(c.Elements, t)
	if len(buttons) > 0 {
		row := cardActions{Tag: "action"}
		for i, b := range buttons {
			btn := cardButton{Tag: "button", Type: "default", Value: map[string]string{"press": b.Press, "call": b.Call, "chat": chat}}
			if i == 0 {
				btn.Type = "primary"
			}
			btn.Text.Tag, btn.Text.Content = "plain_text", b.Label
			row.Actions = append(row.Actions, btn)
		}
		c.Elements = append(c.Elements, row)
	}
	b, err := json.Marshal(c)
	return string(b), err
}

// uuid is the API's idempotency key for a message (at most 50 characters; the same uuid
// sends one message within an hour) made from the bridge's key.
func uuid(key string) string {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16])
}

// splitChat reads a conversation id: a chat (oc_…) or, in a group, a chat and the root
// message of its thread (oc_…:om_…).
func splitChat(chat string) (chatID, root string) {
	chatID, root, _ = strings.Cut(chat, ":")
	return chatID, root
}

// Send posts a card in chat (or in the chat's thread), with buttons when m has some, and
// returns its message_id.
func (p *Platform) Send(ctx context.Context, chat string, m bridge.Outgoing) (string, error) {
	content, err := cardJSON(chat, m.Text, m.Buttons)
	if err != nil {
		return "", err
	}
	return p.post(ctx, chat, larkim.MsgTypeInteractive, content, m.Key)
}

// post sends a message of kind (msg_type) with content into chat, or in the chat's thread,
// once per key ("": no idempotency key), and returns its message_id.
func (p *Platform) post(ctx context.Context, chat, kind, content, key string) (string, error) {
	chatID, root := splitChat(chat)
	if chatID == "" {
		return "", fmt.Errorf("feishu: no chat to send to (%q)", chat)
	}
	if root != "" {
		body := larkim.NewReplyMessageReqBodyBuilder().MsgType(kind).Content(content).ReplyInThread(true)
		if k := uuid(key); k != "" {
			body.Uuid(k)
		}
		resp, err := p.api.Im.V1.Message.Reply(ctx, larkim.NewReplyMessageReqBuilder().MessageId(root).Body(body.Build()).Build())
		if err != nil {
			return "", fmt.Errorf("feishu: reply in thread: %w", err)
		}
		if err := failure("reply in thread", resp.ApiResp, resp.Code, resp.Msg); err != nil {
			return "", err
		}
		return sentID(resp.Data)
	}
	body := larkim.NewCreateMessageReqBodyBuilder().ReceiveId(chatID).MsgType(kind).Content(content)
	if k := uuid(key); k != "" {
		body.Uuid(k)
	}
	resp, err := p.api.Im.V1.Message.Create(ctx, larkim.NewCreateMessageReqBuilder().ReceiveIdType(larkim.CreateMessageV1ReceiveIDTypeChatId).Body(body.Build()).Build())
	if err != nil {
		return "", fmt.Errorf("feishu: send: %w", err)
	}
	if err := failure("send", resp.ApiResp, resp.Code, resp.Msg); err != nil {
		return "", err
	}
	if resp.Data == nil {
		return "", errNoMessageID
	}
	return sentID(&larkim.ReplyMessageRespData{MessageId: resp.Data.MessageId})
}

var errNoMessageID = errors.New("feishu: the API sent no message_id")

func sentID(d *larkim.ReplyMessageRespData) (string, error) {
	if d == nil || d.MessageId == nil || *d.MessageId == "" {
		return "", errNoMessageID
	}
	return *d.MessageId, nil
}

// Edit patches the card id to show text (its buttons, if it had any, are gone).
func (p *Platform) Edit(ctx context.Context, chat, id, text string) error {
	content, err := cardJSON(chat, text, nil)
	if err != nil {
		return err
	}
	resp, err := p.api.Im.V1.Message.Patch(ctx, larkim.NewPatchMessageReqBuilder().MessageId(id).
		Body(larkim.NewPatchMessageReqBodyBuilder().Content(content).Build()).Build())
	if err != nil {
		return fmt.Errorf("feishu: edit: %w", err)
	}
	return failure("edit", resp.ApiResp, resp.Code, resp.Msg)
}
