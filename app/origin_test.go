package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// forged sends one request to ts with the given Host (empty: the server's own), headers
// and body, and returns its status and body.
func forged(t *testing.T, ts *httptest.Server, method, path, host string, h map[string]string, body string) (int, string) {
	t.Helper()
	// An event stream let through never ends: its status is what counts.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range h {
		if k == "Cookie" {
			req.Header.Add(k, v)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Requests as a browser sends them from Tofu's page, from a page on another local port, from
// a DNS-rebound name, and as forms and subresources: only the first kind gets through.
func TestServerAcceptsOnlyItsOwnOrigin(t *testing.T) {
	t.Parallel()
	f, ts, token := newHTTP(t)
	u, _ := url.Parse(ts.URL)
	port := u.Port()
	self := "http://127.0.0.1:" + port
	other := "http://127.0.0.1:1" // any other local port: same site, another origin
	// Tofu sets no cookie; a replayed one (the old tofu_token_PORT, or any name) opens nothing.
	cookie := "tofu_token_" + port + "=" + token

	const (
		create = "/api/call/SessionService.Create"
		pdf    = "/api/paper/none.pdf" // a read that passes the checks answers 404
		events = "/api/events"
	)
	js := "application/json"
	for _, tc := range []struct {
		name         string
		method, path string
		host         string
		h            map[string]string
		want         int
	}{
		// Tofu's own page.
		{"the UI's call", "POST", create, "", map[string]string{"Origin": self, "Sec-Fetch-Site": "same-origin", "Content-Type": js, "X-Tofu-Token": token}, 200},
		{"the UI on localhost", "POST", create, "localhost:" + port, map[string]string{"Origin": "http://localhost:" + port, "Sec-Fetch-Site": "same-origin", "Content-Type": js, "X-Tofu-Token": token}, 200},
		{"a client with the token", "POST", create, "", map[string]string{"X-Tofu-Token": token}, 200},
		{"the UI's PDF read", "GET", pdf, "", map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "X-Tofu-Token": token}, 404},
		{"a link from elsewhere opens the page", "GET", "/", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, 200},
		{"the page's files need no token", "GET", "/index.html", "", map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "no-cors"}, 200},

		// The token only as a cookie, as a page on another port gets it sent along and a
		// server there replays it (no Origin, no fetch metadata, a JSON body): refused.
		{"a replayed cookie: a call", "POST", create, "", map[string]string{"Content-Type": js, "Cookie": cookie}, 401},
		{"a replayed cookie: MCP server added", "POST", "/api/call/MCPService.Add", "", map[string]string{"Content-Type": js, "Cookie": cookie}, 401},
		{"a replayed cookie: the event stream", "GET", events, "", map[string]string{"Cookie": cookie}, 401},
		{"a replayed cookie: a PDF", "GET", pdf, "", map[string]string{"Cookie": cookie}, 401},
		{"a PDF address typed by the user", "GET", pdf, "", map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Cookie": cookie}, 401},
		{"the token in the query", "POST", create + "?token=" + token, "", map[string]string{"Content-Type": js}, 401},
		{"the event stream with the token in the query", "GET", events + "?token=" + token, "", nil, 401},

		// Another local port: the cookie is sent (same site), the origin differs.
		{"fetch from another port", "POST", create, "", map[string]string{"Origin": other, "Sec-Fetch-Site": "same-site", "Content-Type": js, "Cookie": cookie}, 403},
		{"fetch from another port, no fetch metadata", "POST", create, "", map[string]string{"Origin": other, "Content-Type": js, "Cookie": cookie}, 403},
		{"a form from another port", "POST", create, "", map[string]string{"Origin": other, "Sec-Fetch-Site": "same-site", "Content-Type": "text/plain", "Cookie": cookie}, 403},
		{"a form with no Origin (old browser)", "POST", create, "", map[string]string{"Content-Type": "text/plain", "Cookie": cookie}, 415},
		{"a urlencoded form from the same origin", "POST", create, "", map[string]string{"Origin": self, "Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}, 415},
		{"an upload with the cookie only", "POST", "/api/paper/import?name=x.pdf", "", map[string]string{"Content-Type": "application/pdf", "Cookie": cookie}, 415},
		{"a sandboxed page (Origin null)", "POST", create, "", map[string]string{"Origin": "null", "Content-Type": js, "Cookie": cookie}, 403},
		{"EventSource from another port", "GET", events, "", map[string]string{"Origin": other, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors", "Cookie": cookie}, 403},
		{"<img> of the event stream", "GET", events, "", map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image", "Cookie": cookie}, 403},
		{"<script> of a PDF", "GET", pdf, "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script", "Cookie": cookie}, 403},
		{"a navigation from elsewhere into the API", "GET", pdf, "", map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate", "Cookie": cookie}, 403},
		{"<script> of the page's files", "GET", "/index.html", "", map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Cookie": cookie}, 403},
		{"a call from the address bar", "POST", create, "", map[string]string{"Sec-Fetch-Site": "none", "Content-Type": js, "Cookie": cookie}, 403},

		// Wrong Host: DNS rebinding (a name of the attacker's resolving to 127.0.0.1) or a
		// request meant for another server.
		{"DNS rebinding with the token", "POST", create, "attacker.example:" + port, map[string]string{"Origin": "http://attacker.example:" + port, "Content-Type": js, "X-Tofu-Token": token}, 421},
		{"DNS rebinding, a read", "GET", pdf, "attacker.example:" + port, map[string]string{"Cookie": cookie}, 421},
		{"a Host with another port", "GET", pdf, "127.0.0.1:1", map[string]string{"X-Tofu-Token": token}, 421},
		{"a Host with no port", "GET", pdf, "127.0.0.1", map[string]string{"X-Tofu-Token": token}, 421},
	} {
		code, body := forged(t, ts, tc.method, tc.path, tc.host, tc.h, "[\"x\"]")
		if code != tc.want {
			t.Errorf("%s: %d %q, want %d", tc.name, code, body, tc.want)
		}
		if code >= 400 && code != 404 && strings.TrimSpace(body) == "" {
			t.Errorf("%s: refused without a message", tc.name)
		}
	}
	// Only the three accepted calls created a conversation.
	list, err := f.app.Sessions.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("sessions created: %d %v, want 3", len(list), err)
	}
}

// The first page load (with the token, as an old address carried it in the query) sets no
// cookie: browsers would send it to every port of the host.
func TestServerSetsNoCookie(t *testing.T) {
	t.Parallel()
	_, ts, token := newHTTP(t)
	resp, err := ts.Client().Get(ts.URL + "/?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 || resp.Header.Get("Set-Cookie") != "" {
		t.Fatalf("page load: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
}
