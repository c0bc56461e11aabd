package platforms

import (
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/config"
)

// Field is one platform setting the Settings form asks for: Key is its name in config.Bridge's
// JSON.
type Field struct {
	Key         string `json:"key"`
	Label       string `json:"label"`
	Placeholder string `json:"placeholder,omitempty"`
	Hint        string `json:"hint,omitempty"`
	// Required means the bridge cannot be turned on without it.
	Required bool `json:"required,omitempty"`
}

// Form is what the Settings form shows for a platform besides the fields every bridge has
// (allowed users, workspace, approval mode, tools): its own fields, and what its token is.
type Form struct {
	Platform  string  `json:"platform"`
	Label     string  `json:"label"`
	Fields    []Field `json:"fields"`
	Token     string  `json:"token"`      // what the token is called on the platform
	TokenHint string  `json:"token_hint"` // where to get it
	// AllowedHint says what a user id looks like there.
	AllowedHint string `json:"allowed_hint"`
}

// forms are the platforms' forms, by platform.
var forms = map[string]Form{
	"matrix": {
		Label: "Matrix",
		Fields: []Field{
			{Key: "homeserver", Label: "Homeserver", Placeholder: "https://matrix.example.org", Hint: "the bot account's server", Required: true},
			{Key: "user_id", Label: "Bot's user id", Placeholder: "@tofu:example.org", Hint: "the account Tofu speaks as (a second account, not yours)", Required: true},
		},
		Token:       "Access token",
		TokenHint:   "log in as the bot in Element: Settings → Help & About → Access token",
		AllowedHint: "Matrix ids such as @you:example.org",
	},
	"telegram": {
		Label: "Telegram",
		Fields: []Field{
			{Key: "api", Label: "Bot API address", Placeholder: "https://api.telegram.org", Hint: "leave empty for Telegram's own"},
		},
		Token:       "Bot token",
		TokenHint:   "from @BotFather: /newbot answers with it (123456:ABC…)",
		AllowedHint: "numeric Telegram user ids (ask @userinfobot for yours)",
	},
	"slack": {
		Label: "Slack",
		Fields: []Field{
			{Key: "api", Label: "Web API address", Placeholder: "https://slack.com/api/", Hint: "leave empty for Slack's own"},
		},
		Token:       "App-level token and bot token",
		TokenHint:   "both on one line, separated by a space: the app-level token (xapp-…, Basic Information → App-Level Tokens, scope connections:write) and the bot token (xoxb-…, OAuth & Permissions)",
		AllowedHint: "Slack member ids such as U012AB3CD (your profile → ⋮ → Copy member ID)",
	},
	"feishu": {
		Label: "Feishu / Lark",
		Fields: []Field{
			{Key: "app_id", Label: "App ID", Placeholder: "cli_a1b2c3d4e5f6", Hint: "the custom app's Credentials & Basic Info page", Required: true},
			{Key: "domain", Label: "Domain", Placeholder: "feishu", Hint: "feishu (open.feishu.cn) or lark (open.larksuite.com); empty is feishu"},
		},
		Token:       "App secret",
		TokenHint:   "the custom app's Credentials & Basic Info page: App Secret (the App ID goes in its field)",
		AllowedHint: "open_ids such as ou_7d8a6e6df7621556ce0d21922b676706 (message the bot: Tofu's log names the open_id it refused)",
	},
}

// Forms lists the form of every platform a bridge can be (config.BridgePlatforms); a platform
// without a form of its own gets the fields every bridge has and a plain token.
func Forms() []Form {
	out := []Form{}
	for _, p := range config.BridgePlatforms {
		f, ok := forms[p]
		if !ok {
			f = Form{Label: p, Token: "Token"}
		}
		f.Platform = p
		if f.Fields == nil {
			f.Fields = []Field{}
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Form) int { return strings.Compare(a.Label, b.Label) })
	return out
}
