package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestNetworkThroughTheProxy: a sandboxed command reaches an allowed host only through the
// proxy, which asks about each host and port once; a refused one gets the proxy's reason,
// and the proxy lists it for the command's result.
func TestNetworkThroughTheProxy(t *testing.T) {
	f := newFixture(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello from "+r.Host)
	}))
	defer site.Close()
	var mu sync.Mutex
	var asked []string
	allow := func(_ context.Context, hp string) (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, hp)
		if strings.HasPrefix(hp, "pkg.test:") {
			return true, ""
		}
		return false, "network is off for commands: ask for web access to " + hp
	}
	dial := func(ctx context.Context, hostport string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", site.Listener.Addr().String()) // every allowed name is the test site
	}
	p, err := startProxy(context.Background(), filepath.Join(f.temp, "proxy.sock"), allow, dial)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	b := f.b
	b.Network = p.Network()
	_, port, _ := net.SplitHostPort(site.Listener.Addr().String())
	out, err := run(t, b, f.ws, "curl -sS http://pkg.test:"+port+"/ && echo && curl -sS http://pkg.test:"+port+"/again && echo && "+
		"curl -sS http://evil.test/x; echo; curl -sS --noproxy '*' http://pkg.test:"+port+"/direct; echo exit=$?")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"hello from pkg.test:" + port, "refused evil.test:80: network is off for commands", "exit=6"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output %q lacks %q", out, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(asked, " ") != "pkg.test:"+port+" evil.test:80" {
		t.Fatalf("asked %v: each host once", asked)
	}
	if r := p.Refused(); len(r) != 1 || !strings.HasPrefix(r[0], "evil.test:80: ") {
		t.Fatalf("refused %v", r)
	}
}

func TestPublicAddresses(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1::1": true, "127.0.0.1": false, "10.1.2.3": false,
		"169.254.169.254": false, "100.64.0.1": false, "::ffff:127.0.0.1": false, "::127.0.0.1": false,
		"fec0::1": false, "fd00::1": false, "fe80::1": false, "::1": false, "0.0.0.0": false, "64:ff9b::a00:1": false,
	} {
		if got := public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("public(%s) = %v, want %v", addr, got, want)
		}
	}
}
