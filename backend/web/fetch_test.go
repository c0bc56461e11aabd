package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/shareddata"
)

// site serves the saved pages of testdata, a redirect chain, a huge page, a slow page and a
// PDF (a shared paper) on loopback.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	pdf, err := os.ReadFile(shareddata.Require(t, "papers", "elegantpaper_en", "paper.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, name := range []string{"article", "docs", "injection"} {
		page, err := os.ReadFile("testdata/" + name + ".html")
		if err != nil {
			t.Fatal(err)
		}
		mux.HandleFunc("/"+name, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Cookie") != "" {
				http.Error(w, "a cookie was sent", http.StatusBadRequest)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "tracked"})
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
		})
	}
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n < 3 {
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n+1), http.StatusFound)
			return
		}
		http.Redirect(w, r, "/article", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><article><h1>Huge</h1>"))
		for range 20000 {
			w.Write([]byte("<p>Soy milk is curdled with nigari to make tofu, again and again and again.</p>"))
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><p>The first part"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	})
	mux.HandleFunc("/paper.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// quality is what extraction keeps of a page: sentences of its main text that must be found,
// and boilerplate that must be dropped.
var quality = map[string]struct{ main, boilerplate []string }{
	"article": {
		main: []string{"Pressing tofu removes water so that the curd browns", "Wrap the block in a clean towel",
			"## Why it works", "The curd is a network of soy proteins", "[guide to coagulants](http://127.0.0.1"},
		boilerplate: []string{"Shop our presses", "We use cookies", "Ten sauces you must try", "All rights reserved",
			"Privacy policy", "tracking pixel script", "Sign in"},
	},
	"docs": {
		main: []string{"# Configuration", "tofuctl reads its settings from `~/.config/tofuctl/config.toml`", "| press\\_minutes | 20      | how long a block stays under the press |",
			"press_minutes = 25", "A key given twice keeps the last value"},
		boilerplate: []string{"Search the docs", "API reference", "Changelog", "Built with Sphinx"},
	},
	"injection": {
		main:        []string{"Soybean prices rose by three percent", "Analysts expect the rise to hold"},
		boilerplate: nil,
	},
}

func TestFetchExtractsMainContent(t *testing.T) {
	srv := site(t)
	f := &Fetcher{Guard: Guard{AllowPrivate: true}}
	var found, mains, dropped, boiler int
	for name, q := range quality {
		p, err := f.Fetch(context.Background(), srv.URL+"/"+name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range q.main {
			mains++
			if strings.Contains(p.Markdown, s) {
				found++
			} else {
				t.Errorf("%s: main text %q missing from\n%s", name, s, p.Markdown)
			}
		}
		for _, s := range q.boilerplate {
			boiler++
			if !strings.Contains(p.Markdown, s) {
				dropped++
			} else {
				t.Logf("%s: boilerplate %q kept", name, s)
			}
		}
	}
	t.Logf("extraction on the saved pages: main text found %d/%d, boilerplate dropped %d/%d", found, mains, dropped, boiler)
	// The docs page's one-line footer sits inside the content column: readability keeps it.
	if dropped < boiler-1 {
		t.Errorf("boilerplate dropped %d/%d, want at least %d", dropped, boiler, boiler-1)
	}
}

func TestFetchRedirectsPDFAndCaps(t *testing.T) {
	srv := site(t)
	f := &Fetcher{Guard: Guard{AllowPrivate: true}, MaxBytes: 256 << 10}
	p, err := f.Fetch(context.Background(), srv.URL+"/hop/0")
	if err != nil || !strings.HasSuffix(p.URL, "/article") || len(p.Redirects) != 4 || p.Title == "" {
		t.Fatalf("redirect chain: %+v, %v", p, err)
	}
	if _, err := f.Fetch(context.Background(), srv.URL+"/loop"); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("redirect loop: %v", err)
	}
	p, err = f.Fetch(context.Background(), srv.URL+"/paper.pdf")
	if err != nil || p.Kind != "pdf" || !strings.Contains(p.Markdown, "<!-- page 1 -->") && !strings.Contains(p.Markdown, "page 1") {
		t.Fatalf("pdf: %v, %.200q", err, p.Markdown)
	}
	p, err = f.Fetch(context.Background(), srv.URL+"/huge")
	if err != nil || !p.Truncated || p.Bytes != 256<<10 || !strings.Contains(p.Markdown, "curdled with nigari") {
		t.Fatalf("huge: truncated %v bytes %d err %v", p.Truncated, p.Bytes, err)
	}
	slow := &Fetcher{Guard: Guard{AllowPrivate: true}, Timeout: 300 * time.Millisecond}
	if _, err := slow.Fetch(context.Background(), srv.URL+"/slow"); err == nil || !strings.Contains(err.Error(), "within") {
		t.Errorf("slow page: %v", err)
	}
	if _, err := f.Fetch(context.Background(), "file:///etc/passwd"); err == nil {
		t.Error("a file URL was fetched")
	}
}

func TestGuardRefusesPrivateAddresses(t *testing.T) {
	srv := site(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	f := &Fetcher{Guard: Guard{}}
	for _, u := range []string{srv.URL + "/article", "http://localhost:" + port + "/article", "http://[::ffff:127.0.0.1]:" + port + "/article"} {
		_, err := f.Fetch(context.Background(), u)
		var priv *ErrPrivate
		if !errors.As(err, &priv) {
			t.Errorf("%s: %v, want a refusal", u, err)
		}
	}
	// A redirect from an allowed host into a private one is refused at the hop.
	allowed := &Fetcher{Guard: Guard{AllowHosts: []string{"127.0.0.1"}}}
	if p, err := allowed.Fetch(context.Background(), srv.URL+"/hop/2"); err != nil || !strings.HasSuffix(p.URL, "/article") {
		t.Errorf("allowed host: %v", err)
	}
	if _, err := allowed.Fetch(context.Background(), "http://localhost:"+port+"/article"); err == nil {
		t.Error("localhost passed although only 127.0.0.1 is allowed")
	}
	for _, a := range []string{"10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "fd00::1", "fe80::1", "::1", "0.0.0.0"} {
		if !private(mustAddr(t, a)) {
			t.Errorf("%s is not treated as private", a)
		}
	}
	for _, a := range []string{"1.1.1.1", "8.8.8.8", "2606:4700::1111"} {
		if private(mustAddr(t, a)) {
			t.Errorf("%s is treated as private", a)
		}
	}
}

// IPv4-compatible IPv6 addresses (::/96: ::127.0.0.1, ::169.254.169.254) and site-local ones
// (fec0::/10) were dialled: neither is private by Go's test nor in the reserved list.
func TestGuardRefusesIPv4CompatibleAndSiteLocal(t *testing.T) {
	t.Parallel()
	f := &Fetcher{Guard: Guard{}, Timeout: 5 * time.Second}
	for _, u := range []string{"http://[::127.0.0.1]:1/", "http://[::a9fe:a9fe]/latest/meta-data/", "http://[fec0::1]/", "http://[feff::1]/"} {
		_, err := f.Fetch(context.Background(), u)
		var priv *ErrPrivate
		if !errors.As(err, &priv) {
			t.Errorf("%s: %v, want a refusal before connecting", u, err)
		}
	}
	for _, a := range []string{"::7f00:1", "::10.0.0.1", "::8.8.8.8", "fec0::1", "fef0:1::2"} {
		if !private(mustAddr(t, a)) {
			t.Errorf("%s is not treated as private", a)
		}
	}
	for _, a := range []string{"::1:0:0:0", "fe00::1"} { // just past each range
		if private(mustAddr(t, a)) {
			t.Errorf("%s is treated as private: the ranges reach past ::/96 and fec0::/10", a)
		}
	}
}

// With a local SearXNG configured, its host was allowed whole: fetch_url reached every port
// of it (Ollama, a database, a dev server beside the search engine). The search host is
// allowed by host and port; a host the user lists alone still opens every port.
func TestSearchHostAllowsItsPortOnly(t *testing.T) {
	t.Parallel()
	serve := func() *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte("<title>local</title><p>local service</p>"))
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	searx, other := serve(), serve()
	f := &Fetcher{Guard: Guard{AllowHosts: []string{SearchHost(searx.URL + "/search")}}}
	if _, err := f.Fetch(context.Background(), searx.URL+"/"); err != nil {
		t.Errorf("the search host's own port: %v", err)
	}
	var priv *ErrPrivate
	if _, err := f.Fetch(context.Background(), other.URL+"/"); !errors.As(err, &priv) {
		t.Errorf("another port of the search host: %v, want a refusal", err)
	}
	whole := &Fetcher{Guard: Guard{AllowHosts: []string{"127.0.0.1"}}}
	if _, err := whole.Fetch(context.Background(), other.URL+"/"); err != nil {
		t.Errorf("a host the user allowed, another port: %v", err)
	}
	for raw, want := range map[string]string{
		"http://127.0.0.1:8888":        "127.0.0.1:8888",
		"http://Searx.LAN/":            "searx.lan:80",
		"https://searx.lan/search?q=x": "searx.lan:443",
		"http://[fd00::1]:8888/":       "[fd00::1]:8888",
		"searx.lan:8888":               "",
	} {
		if got := SearchHost(raw); got != want {
			t.Errorf("SearchHost(%q) = %q, want %q", raw, got, want)
		}
	}
}
