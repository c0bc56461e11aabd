package slack

import (
	"context"
	"strings"

	"github.com/slack-go/slack"

	"github.com/tofu-research/tofu/backend/bridge"
)

// Slack's limits: a message's text (chat.postMessage truncates beyond it) and a section
// block's text.
const (
	maxText    = 40000
	maxSection = 3000
)

// fit cuts text to n characters, saying so.
func fit(text string, n int) string {
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	return string(r[:n-40]) + "\n… (cut: the whole answer is in Tofu)"
}

// split reads a conversation id as its channel and thread ("" in a direct message).
func split(chat string) (channel, thread string) {
	channel, thread, _ = strings.Cut(chat, ":")
	return channel, thread
}

// Send posts a message with chat.postMessage (in the conversation's thread), its buttons as a
// Block Kit actions block: each button's action_id is tofu-yes or tofu-no and its value
// "yes:CALL" or "no:CALL". The id is the message's ts.
func (p *Platform) Send(ctx context.Context, chat string, m bridge.Outgoing) (string, error) {
	channel, thread := split(chat)
	opts := []slack.MsgOption{slack.MsgOptionText(fit(m.Text, maxText), false)}
	if thread != "" {
		opts = append(opts, slack.MsgOptionTS(thread))
	}
	if len(m.Buttons) > 0 {
		var buttons []slack.BlockElement
		for _, b := range m.Buttons {
			btn := slack.NewButtonBlockElement("tofu-"+b.Press, b.Press+":"+b.Call, slack.NewTextBlockObject(slack.PlainTextType, b.Label, false, false))
			if b.Press == "yes" {
				btn.Style = slack.StylePrimary
			}
			buttons = append(buttons, btn)
		}
		opts = append(opts, slack.MsgOptionBlocks(
			slack.NewSectionBlock(slack.NewTextBlockObject(slack.PlainTextType, fit(m.Text, maxSection), false, false), nil, nil),
			slack.NewActionBlock("tofu-approval", buttons...)))
	}
	_, ts, err := p.api.PostMessageContext(ctx, channel, opts...)
	if err != nil {
		return "", wrap("chat.postMessage", err)
	}
	return ts, nil
}

// Edit replaces a message's text with chat.update.
func (p *Platform) Edit(ctx context.Context, chat, id, text string) error {
	channel, _ := split(chat)
	if _, _, _, err := p.api.UpdateMessageContext(ctx, channel, id, slack.MsgOptionText(fit(text, maxText), false)); err != nil {
		return wrap("chat.update", err)
	}
	return nil
}
