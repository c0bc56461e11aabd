package browse

import (
	"context"
	"net/url"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/tools"
)

// guarded runs a browser call so that a page leading the browser to a host not approved for
// the session (a link, a form, a script, a redirect, a new tab) asks from this call, through
// the approval service, as opening that host with browser_navigate would; and so that the
// local files the session's pages load are judged by the call's workspace and approvals.
func guarded[P any](b *box, run func(context.Context, tools.Call, P) (tools.Result, error)) func(context.Context, tools.Call, P) (tools.Result, error) {
	return func(ctx context.Context, call tools.Call, p P) (tools.Result, error) {
		// Between calls (a page's timer): the workspace's files, nothing asked.
		b.o.Browser.Confine(b.o.Session, tools.RealPath(call.Workspace), b.fileRule(ctx, call, false))
		release := b.o.Browser.Asking(b.o.Session, func(host, _ string) (bool, string) {
			if call.Permit == nil {
				return false, "nobody can approve a new site during this call"
			}
			return call.Permit(ctx, []tools.Access{{Kind: tools.AccessNetwork, Target: host}})
		}, b.fileRule(ctx, call, true))
		defer release()
		return run(ctx, call, p)
	}
}

// fileRule is which local files the session's pages may load besides those the model opened
// itself (AllowFile, its call approved): one inside the workspace, which is a read like any other while
// a call runs (so a secret place inside it, the home as workspace, asks as read_files would).
// A page never leads the browser to a file outside the workspace by itself.
func (b *box) fileRule(ctx context.Context, call tools.Call, live bool) browser.FileRule {
	ws := tools.RealPath(call.Workspace)
	return func(path string) (bool, string) {
		real := tools.RealPath(path)
		if call.Workspace == "" || !tools.Within(ws, real) {
			return false, real + " is outside the workspace; only a browser_navigate to it (which asks) may show it"
		}
		if !live {
			return true, ""
		}
		if call.Permit == nil {
			return false, "nobody can approve reading " + real + " during this call"
		}
		return call.Permit(ctx, []tools.Access{{Kind: tools.AccessRead, Path: real}})
	}
}

// allow approves u for the session's pages: the model opens it itself, and the call was
// allowed (asked for when web access is on and the host is not local, or when the file is
// outside the workspace).
func (b *box) allow(u *url.URL) {
	switch u.Scheme {
	case "http", "https":
		b.o.Browser.AllowHost(b.o.Session, u.Host)
	case "file":
		if path, err := browser.FilePath(u.String()); err == nil {
			b.o.Browser.AllowFile(b.o.Session, tools.RealPath(path))
		}
	}
}
