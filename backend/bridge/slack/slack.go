// Package slack is the bridge's Slack platform, on github.com/slack-go/slack in Socket Mode:
// the app-level token (xapp-…) opens a WebSocket through apps.connections.open (so no public
// address), the bot token (xoxb-…) posts with chat.postMessage and edits with chat.update.
// A direct message is one conversation; in a channel, each thread is one.
package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/slack-go/slack"

	"github.com/tofu-research/tofu/backend/bridge"
)

// Options say which Slack app the bridge speaks as.
type Options struct {
	// AppToken (xapp-…, with connections:write) opens the socket; BotToken (xoxb-…) reads who
	// the bot is and posts. Both are kept in the keyring as one secret (ParseTokens).
	AppToken, BotToken string
	// API is the Web API's address ("": https://slack.com/api/; the tests' loopback server
	// sets another).
	API    string
	Client *http.Client // nil: one with a 30 s timeout
}

// Platform is a Slack app as a bridge platform.
type Platform struct {
	o   Options
	api *slack.Client

	mu   sync.Mutex
	self string
	// seen is the ts of the last message delivered in each conversation (the cursor).
	seen map[string]string
}

// ParseTokens reads the secret `tofu bridge token NAME` keeps for a Slack bridge: the app-level
// token and the bot token, in either order, separated by spaces or new lines.
func ParseTokens(secret string) (appToken, botToken string, err error) {
	for _, f := range strings.FieldsFunc(secret, func(r rune) bool { return r == ' ' || r == '\n' || r == ',' || r == '\t' }) {
		switch {
		case strings.HasPrefix(f, "xapp-"):
			appToken = f
		case strings.HasPrefix(f, "xoxb-"):
			botToken = f
		default:
			return "", "", errors.New("slack: the token holds something that is neither an app-level token (xapp-…) nor a bot token (xoxb-…)")
		}
	}
	if appToken == "" || botToken == "" {
		return "", "", errors.New("slack: keep both tokens, on one line: the app-level token (xapp-…) and the bot token (xoxb-…)")
	}
	return appToken, botToken, nil
}

// New returns the platform for o; nothing is sent until Check, Listen or Send.
func New(o Options) (*Platform, error) {
	if !strings.HasPrefix(o.AppToken, "xapp-") || !strings.HasPrefix(o.BotToken, "xoxb-") {
		return nil, errors.New("slack: an app-level token (xapp-…) and a bot token (xoxb-…) are needed")
	}
	if o.API == "" {
		o.API = slack.APIURL
	}
	if !strings.HasSuffix(o.API, "/") {
		o.API += "/"
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: defaultTimeout}
	}
	api := slack.New(o.BotToken, slack.OptionAppLevelToken(o.AppToken), slack.OptionAPIURL(o.API), slack.OptionHTTPClient(o.Client))
	return &Platform{o: o, api: api}, nil
}

// Name is "slack".
func (p *Platform) Name() string { return "slack" }

// Self is the bot's user id (known after Check or Listen).
func (p *Platform) Self() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.self
}

// Check asks auth.test who the bot token belongs to (tofu bridge test).
func (p *Platform) Check(ctx context.Context) (string, error) {
	r, err := p.api.AuthTestContext(ctx)
	if err != nil {
		return "", wrap("auth.test", err)
	}
	p.mu.Lock()
	p.self = r.UserID
	p.mu.Unlock()
	return fmt.Sprintf("@%s (%s) in %s", r.User, r.UserID, r.Team), nil
}

// wrap names the method of a failed call; Slack's 429 becomes the bridge's RateLimited with
// the Retry-After it asked for.
func wrap(method string, err error) error {
	var limited *slack.RateLimitedError
	if errors.As(err, &limited) {
		return &bridge.RateLimited{After: limited.RetryAfter, Err: fmt.Errorf("slack: %s: %w", method, err)}
	}
	return fmt.Errorf("slack: %s: %w", method, err)
}
