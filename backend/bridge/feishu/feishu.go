// Package feishu is the bridge's Feishu (Lark) platform, on Feishu's official Go SDK
// (github.com/larksuite/oapi-sdk-go/v3): events arrive over the SDK's long connection (a
// websocket the client opens: no public address), messages are sent as interactive cards
// (so a streaming answer is a card patched in place) through the IM v1 API, approvals are
// card buttons. Feishu and Lark are the same API on two domains.
package feishu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	lark "github.com/larksuite/oapi-sdk-go/v3"
	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"

	"github.com/tofu-research/tofu/backend/bridge"
)

// Options say which app the bridge speaks as, and where.
type Options struct {
	// AppID and AppSecret are the custom app's credentials (the developer console's
	// Credentials & Basic Info); the SDK turns them into a tenant access token.
	AppID, AppSecret string
	// Domain is "feishu" (""; https://open.feishu.cn), "lark" (https://open.larksuite.com)
	// or the address of another server speaking the same API (the tests' loopback one).
	Domain string
	// Logf receives the SDK's warnings and errors (nil: dropped; the bridge logs what fails).
	Logf func(format string, args ...any)
	// HTTPClient makes the API calls (nil: one with a 30 s timeout).
	HTTPClient *http.Client
}

// Platform is a Feishu (or Lark) custom app's bot as a bridge platform.
type Platform struct {
	o    Options
	base string
	api  *lark.Client
	self string

	mu   sync.Mutex
	seen map[string]int64 // the cursor: each conversation's last delivered message (ms)
}

// BaseURL is the API's address for a domain setting: feishu, lark, or an http(s) URL.
func BaseURL(domain string) (string, error) {
	switch d := strings.TrimRight(strings.TrimSpace(domain), "/"); {
	case d == "" || strings.EqualFold(d, "feishu"):
		return lark.FeishuBaseUrl, nil
	case strings.EqualFold(d, "lark"):
		return lark.LarkBaseUrl, nil
	case strings.HasPrefix(d, "https://") || strings.HasPrefix(d, "http://"):
		return d, nil
	}
	return "", fmt.Errorf("feishu: domain %q: use feishu, lark or the API's https address", domain)
}

// New returns the platform for o; nothing is sent until Check, Listen or Send.
func New(o Options) (*Platform, error) {
	if o.AppID == "" || strings.ContainsAny(o.AppID, " /") {
		return nil, errors.New("feishu: the app id is missing or malformed (it looks like cli_a1b2c3…; put it in the bridge's app_id)")
	}
	if o.AppSecret == "" || strings.ContainsAny(o.AppSecret, " /\n") {
		return nil, errors.New("feishu: the app secret is missing or malformed (keep it with tofu bridge token NAME)")
	}
	base, err := BaseURL(o.Domain)
	if err != nil {
		return nil, err
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	api := lark.NewClient(o.AppID, o.AppSecret, lark.WithOpenBaseUrl(base), lark.WithHttpClient(withBound(o.HTTPClient)),
		lark.WithLogger(sdkLogger{o.Logf}), lark.WithLogLevel(larkcore.LogLevelWarn))
	return &Platform{o: o, base: base, api: api}, nil
}

// Name is "feishu".
func (p *Platform) Name() string { return "feishu" }

// Self is the bot's open_id (known after Check or Listen).
func (p *Platform) Self() string { return p.self }

// Error is the API's refusal of a call.
type Error struct {
	Op     string
	Status int // HTTP status
	Code   int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("feishu: %s: %s (code %d, HTTP %d)", e.Op, e.Msg, e.Code, e.Status)
}

// Rate-limit codes: the gateway's (HTTP 429, or 400 on older APIs) and the IM API's own
// limit on sending into one chat.
const (
	codeRateLimited     = 99991400
	codeChatRateLimited = 230020
)

// failure reads an API answer: nil when it succeeded, a bridge.RateLimited for Feishu's
// "slow down" (as long as x-ogw-ratelimit-reset says, in seconds), an *Error otherwise.
func failure(op string, resp *larkcore.ApiResp, code int, msg string) error {
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	if code == 0 && (status == 0 || status/100 == 2) {
		return nil
	}
	e := &Error{Op: op, Status: status, Code: code, Msg: msg}
	if status == http.StatusTooManyRequests || code == codeRateLimited || code == codeChatRateLimited {
		after := time.Second
		if resp != nil {
			if s, err := strconv.Atoi(resp.Header.Get("x-ogw-ratelimit-reset")); err == nil && s > 0 {
				after = time.Duration(s) * time.Second
			}
		}
		return &bridge.RateLimited{After: after, Err: e}
	}
	return e
}

// botInfo is bot/v3/info's answer.
type botInfo struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
	Bot  struct {
		AppName        string `json:"app_name"`
		OpenID         string `json:"open_id"`
		ActivateStatus int    `json:"activate_status"`
	} `json:"bot"`
}

// Check asks the API who the app's bot is (tofu bridge test): its name and open_id.
func (p *Platform) Check(ctx context.Context) (string, error) {
	resp, err := p.api.Get(ctx, "/open-apis/bot/v3/info", nil, larkcore.AccessTokenTypeTenant)
	if err != nil {
		return "", fmt.Errorf("feishu: bot info: %w", err)
	}
	var info botInfo
	if err := json.Unmarshal(resp.RawBody, &info); err != nil {
		return "", fmt.Errorf("feishu: bot info: unreadable answer (HTTP %d): %w", resp.StatusCode, err)
	}
	if err := failure("bot info", resp, info.Code, info.Msg); err != nil {
		return "", err
	}
	if info.Bot.OpenID == "" {
		return "", errors.New("feishu: the app has no bot: enable the bot capability in the developer console")
	}
	p.self = info.Bot.OpenID
	return info.Bot.AppName + " (" + info.Bot.OpenID + ")", nil
}

// sdkLogger passes the SDK's warnings and errors to Logf.
type sdkLogger struct{ logf func(string, ...any) }

func (l sdkLogger) Debug(context.Context, ...any) {}
func (l sdkLogger) Info(context.Context, ...any)  {}
func (l sdkLogger) Warn(_ context.Context, args ...any) {
	if l.logf != nil {
		l.logf("feishu sdk: %s", fmt.Sprint(args...))
	}
}
func (l sdkLogger) Error(ctx context.Context, args ...any) { l.Warn(ctx, args...) }
