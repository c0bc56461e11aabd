package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/worker"
)

// Fetcher fetches pages under the guard, without cookies, within caps.
type Fetcher struct {
	Guard        Guard
	MaxBytes     int64         // body bytes read; 0 is 5 MB (more is cut, and said)
	Timeout      time.Duration // per fetch, redirects included; 0 is 20 s
	MaxRedirects int           // 0 is 5
	UserAgent    string        // "" is Tofu's
	// Transport, when set, replaces the guarded one (tests of the caps on an in-memory server).
	Transport http.RoundTripper
}

// Page is a fetched URL's main content.
type Page struct {
	URL       string   `json:"url"` // after redirects
	Status    int      `json:"status"`
	Kind      string   `json:"kind"` // html, pdf, text
	Title     string   `json:"title,omitempty"`
	Markdown  string   `json:"markdown"`
	Text      string   `json:"text"`
	Redirects []string `json:"redirects,omitempty"` // the URLs left, in order
	Bytes     int64    `json:"bytes"`
	Truncated bool     `json:"truncated,omitempty"` // the body was longer than MaxBytes
}

// hostContext carries each request's host to the guarded dialler (redirects included).
type hostContext struct{ base http.RoundTripper }

func (h hostContext) RoundTrip(req *http.Request) (*http.Response, error) {
	return h.base.RoundTrip(req.WithContext(context.WithValue(req.Context(), hostKey{}, req.URL.Hostname())))
}

func (f *Fetcher) client(redirects *[]string) *http.Client {
	rt := f.Transport
	if rt == nil {
		rt = hostContext{&http.Transport{
			Proxy:                 nil, // a proxy would be dialled instead of the host: the guard must see the host
			DialContext:           f.Guard.dialer(&net.Dialer{Timeout: 10 * time.Second}),
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 15 * time.Second,
			MaxIdleConns:          8,
			IdleConnTimeout:       30 * time.Second,
		}}
	}
	max := orInt(f.MaxRedirects, 5)
	return &http.Client{Transport: rt, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > max {
			return fmt.Errorf("more than %d redirects", max)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("a redirect to %s: only http and https are fetched", req.URL.Scheme)
		}
		*redirects = append(*redirects, via[len(via)-1].URL.String())
		return nil
	}}
}

// Fetch gets rawURL and extracts its main content.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (*Page, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http or https URL", rawURL)
	}
	ctx, cancel := context.WithTimeout(ctx, orDuration(f.Timeout, defaultTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	ua := f.UserAgent
	if ua == "" {
		ua = "Mozilla/5.0 (compatible; Tofu research assistant)"
	}
	req.Header.Set("User-Agent", ua)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.5")
	var redirects []string
	resp, err := f.client(&redirects).Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("fetch %s: no answer within %s", u, orDuration(f.Timeout, defaultTimeout))
		}
		var priv *ErrPrivate
		if errors.As(err, &priv) {
			return nil, priv
		}
		return nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	limit := f.MaxBytes
	if limit <= 0 {
		limit = 5 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("fetch %s: the page did not finish within %s", u, orDuration(f.Timeout, defaultTimeout))
		}
		return nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	p := &Page{URL: resp.Request.URL.String(), Status: resp.StatusCode, Redirects: redirects, Bytes: int64(len(body))}
	if int64(len(body)) > limit {
		body, p.Truncated, p.Bytes = body[:limit], true, limit
	}
	if resp.StatusCode >= 400 {
		return p, fmt.Errorf("fetch %s: HTTP %s", p.URL, resp.Status)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "" {
		ct = http.DetectContentType(body)
		ct, _, _ = mime.ParseMediaType(ct)
	}
	switch {
	case ct == "application/pdf" || bytes.HasPrefix(body, []byte("%PDF-")):
		p.Kind = "pdf"
		if p.Truncated {
			return p, fmt.Errorf("fetch %s: the PDF is larger than %d bytes", p.URL, limit)
		}
		doc, err := worker.Extract(ctx, bytes.NewReader(body), int64(len(body)), paper.Options{}) // a page's PDF, in a child
		if err != nil {
			return p, fmt.Errorf("fetch %s: %w", p.URL, err)
		}
		p.Title, p.Markdown, p.Text = doc.Meta.Title, doc.Markdown(), doc.Text()
	case ct == "text/html" || ct == "application/xhtml+xml":
		p.Kind = "html"
		base, _ := url.Parse(p.URL)
		if err := extractHTML(ctx, body, base, p); err != nil {
			return p, fmt.Errorf("fetch %s: %w", p.URL, err)
		}
	case strings.HasPrefix(ct, "text/") || ct == "application/json" || ct == "application/xml":
		p.Kind = "text"
		p.Text = strings.ToValidUTF8(string(body), "\uFFFD")
		p.Markdown = p.Text
	default:
		return p, fmt.Errorf("fetch %s: %s is not a page Tofu reads (HTML, PDF or text)", p.URL, ct)
	}
	return p, nil
}

func orInt(n, d int) int {
	if n <= 0 {
		return d
	}
	return n
}

func orDuration(n, d time.Duration) time.Duration {
	if n <= 0 {
		return d
	}
	return n
}

// defaultTimeout bounds a fetch or a search query when the caller sets none.
const defaultTimeout = 20 * time.Second
