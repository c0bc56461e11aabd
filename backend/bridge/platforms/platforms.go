// Package platforms makes a bridge's platform from its settings and its token: the one place
// that knows every platform the bridge speaks.
package platforms

import (
	"context"
	"fmt"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/feishu"
	"github.com/tofu-research/tofu/backend/bridge/matrix"
	"github.com/tofu-research/tofu/backend/bridge/slack"
	"github.com/tofu-research/tofu/backend/bridge/telegram"
	"github.com/tofu-research/tofu/backend/config"
)

// Platform is a bridge platform that can also say who its token belongs to.
type Platform interface {
	bridge.Platform
	// Check asks the platform who the token belongs to (tofu bridge test).
	Check(ctx context.Context) (string, error)
}

// New returns the platform of the bridge name set up as b, speaking with token.
func New(name string, b config.Bridge, token string) (Platform, error) {
	if token == "" {
		return nil, fmt.Errorf("bridge %s: no token: set it with tofu bridge token %s (it is kept in the keyring)", name, name)
	}
	switch b.Platform {
	case "matrix":
		return matrix.New(matrix.Options{Homeserver: b.Homeserver, UserID: b.UserID, Token: token})
	case "telegram":
		return telegram.New(telegram.Options{Token: token, API: b.API})
	case "slack":
		appToken, botToken, err := slack.ParseTokens(token)
		if err != nil {
			return nil, fmt.Errorf("bridge %s: %w", name, err)
		}
		return slack.New(slack.Options{AppToken: appToken, BotToken: botToken, API: b.API})
	case "feishu":
		// The app id is a setting; the app secret is the token kept in the keyring.
		return feishu.New(feishu.Options{AppID: b.AppID, AppSecret: token, Domain: b.Domain})
	}
	return nil, fmt.Errorf("bridge %s: unknown platform %q", name, b.Platform)
}
