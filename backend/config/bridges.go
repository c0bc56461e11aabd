package config

import (
	"fmt"
	"slices"
	"strings"
)

// Bridge is one chat app Tofu answers in (backend/bridge). Its token is a secret: kept by
// Secrets under BridgeSecret(name), never here.
type Bridge struct {
	// Platform is one of BridgePlatforms.
	Platform string `json:"platform"`
	// On runs the bridge while Tofu is open; a bridge is off until set up.
	On bool `json:"on,omitempty"`
	// Homeserver and UserID are the Matrix account the bridge speaks as
	// (https://matrix.example.org, @tofu:example.org).
	Homeserver string `json:"homeserver,omitempty"`
	UserID     string `json:"user_id,omitempty"`
	// API is Telegram's Bot API address ("": https://api.telegram.org) or Slack's Web API
	// ("": https://slack.com/api/).
	API string `json:"api,omitempty"`
	// AppID is a Feishu/Lark custom app's id (cli_…; its secret is the token); Domain is
	// feishu ("", open.feishu.cn), lark (open.larksuite.com) or the API's https address.
	AppID  string `json:"app_id,omitempty"`
	Domain string `json:"domain,omitempty"`
	// Allowed are the user ids that may talk to Tofu (Matrix @user:server, Telegram's numeric
	// user id, Feishu's open_id ou_…); everyone else gets one refusal.
	Allowed []string `json:"allowed"`
	// Workspace is where the bridge's conversations work ("": a folder per conversation in
	// Tofu's data folder). Approve is their approval mode ("": ask, through the chat).
	Workspace string `json:"workspace,omitempty"`
	Approve   string `json:"approve,omitempty"`
	// Tools turns on, for this bridge's conversations, families that stay off there
	// otherwise: web, browser, desktop.
	Tools []string `json:"tools,omitempty"`
}

// BridgePlatforms are the platforms a bridge can be.
var BridgePlatforms = []string{"matrix", "telegram", "slack", "feishu"}

// BridgeSecret is the name a bridge's token is kept under by Secrets.
func BridgeSecret(name string) string { return "bridge:" + name }

func validateBridges(bridges map[string]Bridge) error {
	for name, b := range bridges {
		if name == "" || strings.ContainsAny(name, "/ \t\n") {
			return fmt.Errorf("bridge name %q: use letters, digits and dashes", name)
		}
		if !slices.Contains(BridgePlatforms, b.Platform) {
			return fmt.Errorf("bridge %s: platform %q: one of %s", name, b.Platform, strings.Join(BridgePlatforms, ", "))
		}
		if b.On && len(b.Allowed) == 0 {
			return fmt.Errorf("bridge %s: list the user ids allowed to talk to Tofu before turning it on", name)
		}
		if b.Platform == "matrix" && b.On && (b.Homeserver == "" || b.UserID == "") {
			return fmt.Errorf("bridge %s: a Matrix bridge needs its homeserver and the bot's user id", name)
		}
		if b.Platform == "feishu" && b.On && b.AppID == "" {
			return fmt.Errorf("bridge %s: a Feishu bridge needs its app's id (app_id, cli_…)", name)
		}
		for _, f := range b.Tools {
			if f != "web" && f != "browser" && f != "desktop" {
				return fmt.Errorf("bridge %s: tools: %q is not one of web, browser, desktop", name, f)
			}
		}
	}
	return nil
}
