package app

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// forged sends one request to ts with the given Host (empty: the server's own), headers
// and body, and returns its status and body.
func forged(t *testing.T, ts *httptest.Server, method, path, host string, h map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
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
	cookie := cookieName(localPortOf(t, ts)) + "=" + token

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
		{"the UI's call", "POST", create, "", map[string]string{"Origin": self, "Sec-Fetch-Site": "same-origin", "Content-Type": js, "X-Tofu-Token": token, "Cookie": cookie}, 200},
		{"the UI on localhost", "POST", create, "localhost:" + port, map[string]string{"Origin": "http://localhost:" + port, "Sec-Fetch-Site": "same-origin", "Content-Type": js, "Cookie": cookie}, 200},
		{"a client with the token", "POST", create, "", map[string]string{"X-Tofu-Token": token}, 200},
		{"the UI's PDF read", "GET", pdf, "", map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Cookie": cookie}, 404},
		{"a PDF address typed by the user", "GET", pdf, "", map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Cookie": cookie}, 404},
		{"a link from elsewhere opens the page", "GET", "/", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Cookie": cookie}, 200},

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

		// The credential is per port: another server's cookie is not this one's.
		{"the cookie of a server on another port", "POST", create, "", map[string]string{"Content-Type": js, "Cookie": cookieName(1) + "=" + token}, 401},
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

// The cookie set by the first page load is named for the server's port, so two servers on one
// machine keep separate cookies and one's cookie opens nothing on the other.
func TestServerCookieIsPerPort(t *testing.T) {
	t.Parallel()
	_, a, tokenA := newHTTP(t)
	_, b, _ := newHTTP(t)
	resp, err := a.Client().Get(a.URL + "/?token=" + tokenA)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var got *http.Cookie
	for _, c := range resp.Cookies() {
		got = c
	}
	if got == nil || got.Name != cookieName(localPortOf(t, a)) {
		t.Fatalf("cookie %+v, want %s", got, cookieName(localPortOf(t, a)))
	}
	code, _ := forged(t, b, "GET", "/", "", map[string]string{"Cookie": got.Name + "=" + got.Value}, "")
	if code != http.StatusUnauthorized {
		t.Fatalf("server B with server A's cookie: %d", code)
	}
}

func localPortOf(t *testing.T, ts *httptest.Server) int {
	t.Helper()
	u, _ := url.Parse(ts.URL)
	var port int
	if _, err := fmt.Sscan(u.Port(), &port); err != nil {
		t.Fatal(err)
	}
	return port
}
