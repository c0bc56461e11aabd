package coding

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools"
)

// boundary is the sandbox a call's commands run in: the toolbox's, around the call's
// workspace and the session's temporary folder, extended by what a person approved for this
// call (tools.Call.Crossing). nil when commands run unconfined.
func (js *Jobs) boundary(call tools.Call) (*sandbox.Boundary, error) {
	if js.opts.Sandbox == nil {
		return nil, nil
	}
	temp, err := js.temp.Path()
	if err != nil {
		return nil, err
	}
	b := js.opts.Sandbox.Extend(call.Crossing.Writable, call.Crossing.Reveal).Around(call.Workspace, temp)
	// The clean git config lives in the host's /tmp, which the session's replaces.
	b.Expose = append(b.Expose, js.git.globalFile())
	return &b, nil
}

// network starts the proxy a sandboxed foreground command reaches hosts through, when the
// settings allow the network: each host is decided by the approval service from inside the
// call (tools.Call.Permit), as fetch_url's are. nil (and no network) otherwise.
func (js *Jobs) network(ctx context.Context, call tools.Call, box *sandbox.Boundary) (*commandProxy, error) {
	if box == nil || !js.opts.Network {
		return nil, nil
	}
	temp, err := js.temp.Path()
	if err != nil {
		return nil, err
	}
	sock, err := os.CreateTemp(filepath.Dir(temp), "tofu-proxy-*.sock")
	if err != nil {
		return nil, err
	}
	sock.Close()
	p, err := sandbox.StartProxy(ctx, sock.Name(), func(ctx context.Context, hostport string) (bool, string) {
		if call.Permit == nil {
			return false, "nobody can approve a host for this command"
		}
		return call.Permit(ctx, []tools.Access{{Kind: tools.AccessNetwork, Target: hostport}})
	})
	if err != nil {
		return nil, err
	}
	box.Network = p.Network()
	return &commandProxy{p}, nil
}

// commandProxy is a call's proxy; a nil one is no proxy.
type commandProxy struct{ *sandbox.Proxy }

func (c *commandProxy) Close() {
	if c != nil {
		c.Proxy.Close()
	}
}

// networkFailure matches what programs print when they find no network.
var networkFailure = regexp.MustCompile(`(?i)temporary failure in name resolution|name or service not known|could not resolve host|network is unreachable|no address associated with hostname|getaddrinfo|dial tcp: lookup|ENOTFOUND|EAI_AGAIN|Failed to establish a new connection|Tofu's sandbox refused`)

// networkNote tells the model, after a failed sandboxed command, which hosts the boundary
// refused, that commands have no network at all, or that a write outside was refused, so that
// it asks instead of retrying.
func networkNote(box *sandbox.Boundary, proxy *commandProxy, exit int, out string) string {
	if box == nil || exit == 0 {
		return ""
	}
	if proxy != nil {
		if r := proxy.Refused(); len(r) > 0 {
			return "\n[the sandbox refused the network for this command: " + strings.Join(r, "; ") + "]"
		}
		return ""
	}
	if networkFailure.MatchString(out) {
		return "\n[commands run in a sandbox with no network: web access is off in the settings. " +
			"Ask the user to turn it on if this needs a host; do not retry]"
	}
	if strings.Contains(out, "Read-only file system") {
		return "\n[commands run in a sandbox: only the workspace and /tmp are writable. Write inside " +
			"the workspace, or name the path outside in the command itself so the user can approve it]"
	}
	return ""
}
