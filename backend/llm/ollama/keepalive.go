package ollama

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultKeepAlive is how long Tofu asks a server on this machine to keep a model loaded after
// a request, when the user set nothing: Ollama's own default (5 minutes) unloads the model, and
// with it the KV cache of the conversation, while a tool runs the tests or the user reads the
// answer, and the next step prefills the whole conversation again (docs/CONTEXT.md).
const DefaultKeepAlive = "30m"

// WithKeepAlive sets the keep_alive sent with every chat (the user's setting: a Go duration
// such as "10m", or seconds; negative keeps the model loaded until the server stops, 0 unloads
// it after each reply). Empty: DefaultKeepAlive to a server on this machine, unless
// OLLAMA_KEEP_ALIVE is set.
func WithKeepAlive(s string) Option { return func(p *Provider) { p.keepAlive = s } }

// CheckKeepAlive says whether s is a keep_alive Ollama reads: empty, a Go duration, or a whole
// number of seconds (what OLLAMA_KEEP_ALIVE takes).
func CheckKeepAlive(s string) error {
	if s == "" {
		return nil
	}
	_, err := parseKeepAlive(s)
	return err
}

func parseKeepAlive(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	return 0, fmt.Errorf("keep_alive %q is not a duration (such as 30m, 2h, -1 for always, 0 to unload at once)", s)
}

// keepAliveFor is the keep_alive to send to a server on host: the user's setting first, then
// OLLAMA_KEEP_ALIVE (env, the variable the user's server reads too), then DefaultKeepAlive
// when the server runs on this machine. Empty: none is sent (a remote server keeps its own
// policy: its memory is not the user's to hold).
func keepAliveFor(host, setting, env string) string {
	for _, s := range []string{setting, env} {
		if d, err := parseKeepAlive(s); err == nil {
			return wireKeepAlive(d)
		}
	}
	if isLoopback(host) {
		return DefaultKeepAlive
	}
	return ""
}

// wireKeepAlive is d as keep_alive's JSON string; negative is "-1s" (Ollama: until it stops).
func wireKeepAlive(d time.Duration) string {
	if d < 0 {
		return "-1s"
	}
	return d.String()
}

// isLoopback says whether host (a URL's Hostname) is this machine.
func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// sentKeepAlive is what the provider sends to its server.
func (p *Provider) sentKeepAlive() string {
	host := ""
	if p.c.Base != nil {
		host = p.c.Base.Hostname()
	}
	return keepAliveFor(host, p.keepAlive, os.Getenv("OLLAMA_KEEP_ALIVE"))
}
