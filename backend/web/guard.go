package web

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// Guard decides which addresses a fetch may connect to. It checks the address actually
// dialled (after DNS), so a public name that resolves to 127.0.0.1 or 192.168.x.x (DNS
// rebinding) is refused like the address itself.
type Guard struct {
	// AllowPrivate lets every address through: a URL the user typed on the command line is
	// their own choice, fetched wherever it points.
	AllowPrivate bool
	// AllowHosts are hosts (names or addresses, lower case) the user allowed although they
	// are private: a NAS, an intranet wiki. An entry "host:port" ("[fd00::1]:8888") allows
	// that port only: a service Tofu itself talks to (the user's SearXNG) opens that service,
	// not every other one on its machine (Ollama, a database, a dev server); see SearchHost.
	AllowHosts []string
}

// SearchHost is the AllowHosts entry of a service at rawURL: its host and port, the scheme's
// default port when the URL names none ("" when rawURL has no host).
func SearchHost(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// ErrPrivate is a refused connection into a private, loopback or link-local network.
type ErrPrivate struct{ Host, Addr string }

func (e *ErrPrivate) Error() string {
	return fmt.Sprintf("%s resolves to %s, a private or local address: refused (no requests into your own network); the user can allow the host in Settings", e.Host, e.Addr)
}

// private reports whether addr is not on the public internet.
func private(addr netip.Addr) bool {
	addr = addr.Unmap()
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsUnspecified() || addr.IsMulticast() || addr.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range reserved {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// reserved are ranges that are neither private by Go's test nor public: carrier-grade NAT,
// benchmarking, documentation, "this network", the NAT64 prefix that maps to IPv4, the
// deprecated IPv4-compatible addresses (::a.b.c.d, which a stack or a tunnel may carry to
// the IPv4 address inside: ::127.0.0.1, ::169.254.169.254) and the deprecated site-local
// range (fec0::/10, still routed inside some networks).
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("fec0::/10"),
}

// allowedHost reports whether the request's host, dialled on port, is allowed: an entry
// naming the host alone allows every port, one with a port that port only.
func (g Guard) allowedHost(host string, port uint16) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range g.AllowHosts {
		h = strings.TrimSpace(h)
		if eh, ep, err := net.SplitHostPort(h); err == nil {
			if strings.EqualFold(eh, host) && ep == strconv.Itoa(int(port)) {
				return true
			}
			continue
		}
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// dialer returns a DialContext that refuses private addresses unless allowed. The host the
// request named is passed in the context (hostKey), since the dialler sees only the address.
func (g Guard) dialer(base *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, _ := ctx.Value(hostKey{}).(string)
		d := *base
		d.Control = func(_, addr string, _ syscall.RawConn) error {
			if g.AllowPrivate {
				return nil
			}
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				return fmt.Errorf("dial %s: %w", addr, err)
			}
			// Only the host as the request names it is matched: an attacker's name resolving to
			// an allowed address (DNS rebinding onto the user's NAS) stays refused.
			if private(ap.Addr()) && !g.allowedHost(host, ap.Port()) {
				return &ErrPrivate{Host: host, Addr: ap.Addr().String()}
			}
			return nil
		}
		return d.DialContext(ctx, network, address)
	}
}

type hostKey struct{}
