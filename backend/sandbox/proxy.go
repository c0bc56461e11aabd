package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proxy is the only way out of a sandbox's network namespace: an HTTP proxy (CONNECT for
// TLS and any TCP protocol, absolute URLs for plain HTTP) on a Unix socket bound into the
// sandbox, which asks Allow about every host and port before it connects. It dials only
// public addresses: loopback, private, link-local and reserved ones are refused after DNS, so
// a name that resolves into the user's network (or the cloud's metadata address) is too.
type Proxy struct {
	// Allow decides one "host:port"; why says, for the model, why not.
	Allow func(ctx context.Context, hostport string) (ok bool, why string)
	ln    net.Listener
	srv   *http.Server
	ctx   context.Context
	stop  context.CancelFunc
	mu    sync.Mutex
	// refused are the hosts refused, with why, for the command's result; allowed, those let
	// through (each host is asked about once in the proxy's life).
	refused map[string]string
	allowed map[string]bool
	// dial connects to an allowed host (tests reach loopback servers through it).
	dial func(ctx context.Context, hostport string) (net.Conn, error)
}

// StartProxy serves a proxy on a new Unix socket at path until Close or ctx ends.
func StartProxy(ctx context.Context, path string, allow func(ctx context.Context, hostport string) (bool, string)) (*Proxy, error) {
	return startProxy(ctx, path, allow, dialPublic)
}

// startProxy is StartProxy dialling allowed hosts with dial (tests reach loopback servers).
func startProxy(ctx context.Context, path string, allow func(ctx context.Context, hostport string) (bool, string),
	dial func(ctx context.Context, hostport string) (net.Conn, error)) (*Proxy, error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("sandbox: proxy socket: %w", err)
	}
	p := &Proxy{Allow: allow, ln: ln, refused: map[string]string{}, allowed: map[string]bool{}, dial: dial}
	p.ctx, p.stop = context.WithCancel(ctx)
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second,
		BaseContext: func(net.Listener) context.Context { return p.ctx }}
	go p.srv.Serve(ln)
	return p, nil
}

// Network is how a boundary uses p.
func (p *Proxy) Network() *Network { return &Network{Socket: p.ln.Addr().String()} }

// Close stops the proxy and every connection through it.
func (p *Proxy) Close() {
	p.stop()
	_ = p.srv.Close()
	_ = os.Remove(p.ln.Addr().String())
}

// Refused lists the hosts refused so far, each with why ("pypi.org:443: …"), sorted.
func (p *Proxy) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.refused))
	for h, why := range p.refused {
		out = append(out, h+": "+why)
	}
	sort.Strings(out)
	return out
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hostport := r.Host
	if r.Method != http.MethodConnect {
		if r.URL.Scheme != "http" || r.URL.Host == "" {
			http.Error(w, "Tofu's sandbox proxy: only absolute http:// URLs and CONNECT are proxied", http.StatusBadRequest)
			return
		}
		hostport = r.URL.Host
		if r.URL.Port() == "" {
			hostport = net.JoinHostPort(r.URL.Hostname(), "80")
		}
	}
	if ok, why := p.decide(r.Context(), hostport); !ok {
		w.Header().Set("X-Tofu-Refused", "1")
		http.Error(w, "Tofu's sandbox refused "+hostport+": "+why, http.StatusForbidden)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, hostport)
		return
	}
	p.forward(w, r)
}

// decide asks Allow once per host and port for the proxy's life.
func (p *Proxy) decide(ctx context.Context, hostport string) (bool, string) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || host == "" || port == "" {
		return false, "not a host and port"
	}
	hostport = net.JoinHostPort(strings.ToLower(strings.TrimSuffix(host, ".")), port)
	p.mu.Lock()
	why, refused := p.refused[hostport]
	allowed := p.allowed[hostport]
	p.mu.Unlock()
	if refused || allowed {
		return allowed, why
	}
	ok, why := p.Allow(ctx, hostport)
	p.mu.Lock()
	if ok {
		p.allowed[hostport] = true
	} else {
		p.refused[hostport] = why
	}
	p.mu.Unlock()
	return ok, why
}

func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, hostport string) {
	up, err := p.dial(r.Context(), hostport)
	if err != nil {
		http.Error(w, "Tofu's sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	_, _ = down.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n"))
	splice(p.ctx, down, buf.Reader, up)
}

func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	tr := &http.Transport{DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dial(ctx, addr) }}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(out)
	if err != nil {
		http.Error(w, "Tofu's sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// errNotPublic refuses an address that is not on the public internet.
var errNotPublic = errors.New("resolves to a loopback, private, link-local or reserved address: refused")

// dialPublic connects to hostport's public addresses only (checked on the address dialled,
// after DNS).
func dialPublic(ctx context.Context, hostport string) (net.Conn, error) {
	d := net.Dialer{Timeout: 15 * time.Second, Control: func(_, addr string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil || !public(ap.Addr()) {
			return fmt.Errorf("%s %w", hostport, errNotPublic)
		}
		return nil
	}}
	return d.DialContext(ctx, "tcp", hostport)
}

// public reports whether a is a global unicast address outside the private ranges (IPv4
// shared, benchmarking, documentation and reserved ranges, IPv6 unique-local, site-local,
// IPv4-compatible and NAT64 ones included).
func public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"), netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// splice copies both ways until either side ends or ctx does.
func splice(ctx context.Context, down net.Conn, pending *bufio.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, pending); done <- struct{}{} }()
	go func() { _, _ = io.Copy(down, up); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	down.Close()
	up.Close()
	<-done
}
