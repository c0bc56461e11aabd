package browse

import (
	"context"
	"net/url"

	"github.com/tofu-research/tofu/backend/tools"
)

// guarded runs a browser call so that a page leading the browser to a host not approved for
// the session (a link, a form, a script, a redirect, a new tab) asks from this call, through
// the approval service, as opening that host with browser_navigate would.
func guarded[P any](b *box, run func(context.Context, tools.Call, P) (tools.Result, error)) func(context.Context, tools.Call, P) (tools.Result, error) {
	return func(ctx context.Context, call tools.Call, p P) (tools.Result, error) {
		release := b.o.Browser.Asking(b.o.Session, func(host, _ string) (bool, string) {
			if call.Permit == nil {
				return false, "nobody can approve a new site during this call"
			}
			return call.Permit(ctx, []tools.Access{{Kind: tools.AccessNetwork, Target: host}})
		})
		defer release()
		return run(ctx, call, p)
	}
}

// allow approves u's host for the session's pages: the model opens it itself, and the call
// was allowed (asked for when web access is on and the host is not local).
func (b *box) allow(u *url.URL) {
	if u.Scheme == "http" || u.Scheme == "https" {
		b.o.Browser.AllowHost(b.o.Session, u.Host)
	}
}
