package web

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// `tofu serve` is reachable by every page the user's browser opens. Its credential is a
// header only Tofu's page sends (server.go: no cookie, which the browser would send to every
// port of the host); the token proves who holds it, not where a request comes from. These
// checks also let only Tofu's own page (and clients holding the token) through.

// originError is why a request was refused before it reached a handler.
type originError struct {
	status int
	msg    string
}

// checkOrigin refuses a request that does not come from this server's own origin:
//   - Host must be 127.0.0.1:PORT or localhost:PORT, PORT the one the connection came in on
//     (a DNS-rebound name reaches the same socket with its own Host);
//   - Origin, when sent, must be this very origin;
//   - Sec-Fetch-Site, which browsers send with every request, must be same-origin, or "none"
//     (typed in the address bar) for a read; a top-level navigation from elsewhere may open
//     the page itself, never /api/ (an <img>, <script> or EventSource pointed at the API from
//     another port is "same-site" and refused);
//   - a state-changing call must carry the X-Tofu-Token header or a JSON content type, which
//     no form or simple request can send cross-origin without a preflight this server fails.
func checkOrigin(r *http.Request, validToken func(string) bool) *originError {
	port := localPort(r)
	if port == 0 {
		return &originError{http.StatusForbidden, "forbidden: the connection's address is unknown"}
	}
	self := strconv.Itoa(port)
	host, hostPort, err := net.SplitHostPort(r.Host)
	host = strings.ToLower(host)
	if err != nil || hostPort != self || (host != "127.0.0.1" && host != "localhost") {
		return &originError{http.StatusMisdirectedRequest, fmt.Sprintf(
			"forbidden: Host %q is not this Tofu server (open http://127.0.0.1:%s/)", r.Host, self)}
	}
	origin := "http://" + host + ":" + self
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, origin) {
		return &originError{http.StatusForbidden, fmt.Sprintf("forbidden: a page from %s may not call Tofu", o)}
	}
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	api := strings.HasPrefix(r.URL.Path, "/api/")
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin":
	case "none":
		if !read {
			return &originError{http.StatusForbidden, "forbidden: a call must come from the Tofu page"}
		}
	default:
		navigation := r.Header.Get("Sec-Fetch-Mode") == "navigate"
		if !read || api || !navigation {
			return &originError{http.StatusForbidden, fmt.Sprintf("forbidden: a %s request may not reach Tofu", site)}
		}
	}
	if !read && !validToken(r.Header.Get("X-Tofu-Token")) && !isJSON(r.Header.Get("Content-Type")) {
		return &originError{http.StatusUnsupportedMediaType,
			"a call must send Content-Type: application/json or the X-Tofu-Token header"}
	}
	return nil
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// localPort is the port of the socket the request came in on (0 when unknown).
func localPort(r *http.Request) int {
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
		return addr.Port
	}
	return 0
}
