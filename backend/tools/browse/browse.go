// Package browse offers the browser (backend/browser) to the model as a few deferred tools:
// navigate, snapshot, act (batched clicks, typing, waits, dialogs), tabs, read, screenshot
// and eval. They are found with tool_search, so a session that never browses pays nothing.
package browse

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/tools"
)

//go:embed *.md
var docs embed.FS

func doc(name string) string {
	b, err := docs.ReadFile(name + ".md")
	if err != nil {
		panic("browse: missing description " + name + ".md")
	}
	return string(b)
}

// Names are the browser tools, in the order they are offered.
var Names = []string{"browser_navigate", "browser_snapshot", "browser_act", "browser_tabs", "browser_read", "browser_screenshot", "browser_eval"}

// Options wire the browser tools of one session's turn.
type Options struct {
	Browser *browser.Manager
	Session string
	// WebAccess reports whether pages beyond loopback and file:// may open (the settings).
	WebAccess func() bool
	// Thumbnails adds a small picture of the page to each result's Meta (the window's cards).
	Thumbnails bool
}

// Add puts the browser tools into reg, deferred until tool_search finds them or the model
// calls one.
func Add(reg *tools.Registry, o Options) error {
	b := &box{o: o}
	for _, t := range []tools.Tool{b.navigate(), b.snapshot(), b.act(), b.tabs(), b.read(), b.screenshot(), b.eval()} {
		if err := reg.Add(t); err != nil {
			return err
		}
	}
	reg.DeferFamily("open, read and act on web pages", Names...)
	return nil
}

type box struct{ o Options }

// Meta is what a browser tool's result carries for the window (never sent to the model).
type Meta struct {
	Action    string `json:"action"`
	Target    string `json:"target,omitempty"` // the ref, URL or tab acted on
	URL       string `json:"url,omitempty"`
	Title     string `json:"title,omitempty"`
	Tab       string `json:"tab,omitempty"`
	Thumbnail []byte `json:"thumbnail,omitempty"` // JPEG, 320 px wide
}

// result turns a report (or a browser error) into the model's result and the window's meta.
func (b *box) result(ctx context.Context, action, target string, rep browser.Report, err error) (tools.Result, error) {
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf(err.Error()), nil
	}
	meta := Meta{Action: action, Target: target, URL: rep.URL, Title: rep.Title, Tab: rep.Tab}
	if b.o.Thumbnails {
		meta.Thumbnail = b.o.Browser.Thumbnail(ctx, b.o.Session)
	}
	return tools.Result{Text: rep.Text, Meta: meta}, nil
}

// local reports whether u opens without web access: loopback hosts, file:// and about:blank.
func local(u *url.URL) bool {
	switch u.Scheme {
	case "file":
		return true
	case "about":
		return u.Opaque == "blank"
	case "http", "https", "ws", "wss":
		return loopback(u.Hostname())
	}
	return false
}

func loopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// site is what per-site rules name: the host, or "file" for local files.
func site(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return "the page"
	}
	if u.Scheme == "file" {
		return "file"
	}
	return u.Host
}

// localPage reports whether the session's current page is on loopback or a file.
func (b *box) localPage() bool {
	u, err := url.Parse(b.o.Browser.CurrentURL(b.o.Session))
	return err == nil && local(u)
}

var errWebOff = errors.New("web access is off: only loopback (127.0.0.1, localhost) and file:// pages open. The user can turn web access on in Settings")

// parseURL reads raw as Chromium will (browser.CanonicalURL: backslashes, case, missing
// slashes, file://localhost/), so that what is judged is what opens; the browser tools open
// http(s), file and about:blank URLs only. canon is the URL to load.
func parseURL(raw string) (u *url.URL, canon string, err error) {
	canon = browser.CanonicalURL(raw)
	u, err = url.Parse(canon)
	if err != nil || u.Scheme == "" {
		return nil, "", fmt.Errorf("%q is not a URL: give one with its scheme (http://, file://)", raw)
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return nil, "", fmt.Errorf("%q names no host", raw)
		}
	case "file":
		if _, err := browser.FilePath(canon); err != nil {
			return nil, "", fmt.Errorf("%q: %v; only files on this machine open", raw, err)
		}
	case "about":
		if u.Opaque != "blank" {
			return nil, "", fmt.Errorf("%q: of about: pages only about:blank opens", raw)
		}
	default:
		return nil, "", fmt.Errorf("%q: the browser opens http, https and file URLs only", raw)
	}
	return u, canon, nil
}
