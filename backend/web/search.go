package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"

	"github.com/tofu-research/tofu/backend/search"
)

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
	Query   string `json:"query"` // the query that found it first
}

// Provider answers one query.
type Provider interface {
	Name() string
	Search(ctx context.Context, c *http.Client, query string) ([]Result, error)
}

// SearXNG is a SearXNG instance's JSON API (its format=json must be enabled).
type SearXNG struct{ BaseURL string }

func (SearXNG) Name() string { return "SearXNG" }

func (s SearXNG) Search(ctx context.Context, c *http.Client, q string) ([]Result, error) {
	var body struct {
		Results []struct{ Title, URL, Content string } `json:"results"`
	}
	u := strings.TrimRight(s.BaseURL, "/") + "/search?format=json&q=" + url.QueryEscape(q)
	if err := getJSON(ctx, c, u, nil, &body); err != nil {
		return nil, err
	}
	var out []Result
	for _, r := range body.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}

// Brave is Brave's Search API with a subscription key.
type Brave struct {
	Key      string
	Endpoint string // "" is Brave's
}

func (Brave) Name() string { return "Brave" }

func (b Brave) Search(ctx context.Context, c *http.Client, q string) ([]Result, error) {
	ep := b.Endpoint
	if ep == "" {
		ep = "https://api.search.brave.com/res/v1/web/search"
	}
	var body struct {
		Web struct {
			Results []struct{ Title, URL, Description string } `json:"results"`
		} `json:"web"`
	}
	if err := getJSON(ctx, c, ep+"?q="+url.QueryEscape(q), map[string]string{"X-Subscription-Token": b.Key}, &body); err != nil {
		return nil, err
	}
	var out []Result
	for _, r := range body.Web.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Description})
	}
	return out, nil
}

// DuckDuckGo reads DuckDuckGo's HTML results page (no key).
type DuckDuckGo struct {
	Endpoint string // "" is html.duckduckgo.com
}

func (DuckDuckGo) Name() string { return "DuckDuckGo" }

func (d DuckDuckGo) Search(ctx context.Context, c *http.Client, q string) ([]Result, error) {
	ep := d.Endpoint
	if ep == "" {
		ep = "https://html.duckduckgo.com/html/"
	}
	resp, err := get(ctx, c, ep+"?q="+url.QueryEscape(q), nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(io.LimitReader(resp.Body, 2<<20))
	if err != nil {
		return nil, fmt.Errorf("DuckDuckGo: %w", err)
	}
	var out []Result
	doc.Find(".result").Each(func(_ int, s *goquery.Selection) {
		a := s.Find("a.result__a").First()
		href, _ := a.Attr("href")
		// Result links go through DuckDuckGo's redirector: the target is its uddg parameter.
		if u, err := url.Parse(href); err == nil && u.Query().Get("uddg") != "" {
			href = u.Query().Get("uddg")
		}
		if href == "" || strings.Contains(s.AttrOr("class", ""), "result--ad") {
			return
		}
		out = append(out, Result{Title: strings.TrimSpace(a.Text()), URL: href, Snippet: strings.TrimSpace(s.Find(".result__snippet").Text())})
	})
	return out, nil
}

func get(ctx context.Context, c *http.Client, u string, headers map[string]string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; Tofu research assistant)")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: HTTP %s", req.URL.Host, resp.Status)
	}
	return resp, nil
}

func getJSON(ctx context.Context, c *http.Client, u string, headers map[string]string, v any) error {
	resp, err := get(ctx, c, u, headers)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", resp.Request.URL.Host, err)
	}
	return nil
}

// Searcher runs several queries at once on one provider, merges their results without
// duplicates, and ranks them with the retrieval engine against all the queries.
type Searcher struct {
	Provider Provider
	Fetcher  *Fetcher // its guard and timeout apply to the provider's requests
}

// Search runs queries concurrently and returns at most k results, best first. A query that
// failed is reported in errs; the others' results still come.
func (s *Searcher) Search(ctx context.Context, queries []string, k int) (results []Result, errs []error) {
	lists := make([][]Result, len(queries))
	errList := make([]error, len(queries))
	var redirects []string
	c := s.Fetcher.client(&redirects)
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, orDuration(s.Fetcher.Timeout, defaultTimeout))
			defer cancel()
			rs, err := s.Provider.Search(ctx, c, q)
			for j := range rs {
				rs[j].Query = q
			}
			lists[i], errList[i] = rs, err
		}()
	}
	wg.Wait()
	for i, err := range errList {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s, %q: %w", s.Provider.Name(), queries[i], err))
		}
	}
	return Rerank(Dedup(lists), strings.Join(queries, " "), k), errs
}

// Dedup merges result lists in round-robin order (each query's best first), keeping the
// first of results whose URLs are the same page.
func Dedup(lists [][]Result) []Result {
	seen := map[string]bool{}
	var out []Result
	for rank := 0; ; rank++ {
		more := false
		for _, l := range lists {
			if rank >= len(l) {
				continue
			}
			more = true
			key := canonicalURL(l[rank].URL)
			if key == "" || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, l[rank])
		}
		if !more {
			return out
		}
	}
}

// canonicalURL is a URL as the same page: no scheme, fragment, "www.", trailing slash or
// tracking parameters.
func canonicalURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "utm_") || k == "fbclid" || k == "gclid" || k == "ref" {
			q.Del(k)
		}
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	return host + strings.TrimSuffix(u.EscapedPath(), "/") + "?" + q.Encode()
}

// Rerank orders results by BM25 of their title and snippet against the queries (the
// retrieval engine, title counted twice), fused with their merged order (reciprocal rank), so
// a result every query agrees on rises and one that matches no query word sinks.
func Rerank(rs []Result, query string, k int) []Result {
	ix := search.NewIndex(search.NewAnalyzer(), search.DefaultParams, search.Field{Name: "title", Weight: 2}, search.Field{Name: "snippet", Weight: 1})
	for i, r := range rs {
		ix.Add(search.Doc{ID: fmt.Sprint(i), Fields: []string{r.Title, r.Snippet}})
	}
	bm := map[int]float64{}
	best := 0.0
	for _, h := range ix.Search(query, len(rs)) {
		var i int
		fmt.Sscan(h.ID, &i)
		bm[i] = h.Score
		best = max(best, h.Score)
	}
	type scored struct {
		r Result
		s float64
	}
	all := make([]scored, len(rs))
	for i, r := range rs {
		s := 1 / float64(10+i) // the providers' own order
		if best > 0 {
			s += 0.1 * bm[i] / best
		}
		all[i] = scored{r, s}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].s > all[b].s })
	out := make([]Result, 0, min(k, len(all)))
	for _, x := range all {
		if len(out) == k {
			break
		}
		out = append(out, x.r)
	}
	return out
}

// ProviderFor picks the search provider the settings name: a SearXNG URL first, then a Brave
// key, else DuckDuckGo's HTML endpoint.
func ProviderFor(searxngURL, braveKey string) Provider {
	switch {
	case strings.TrimSpace(searxngURL) != "":
		return SearXNG{BaseURL: strings.TrimSpace(searxngURL)}
	case strings.TrimSpace(braveKey) != "":
		return Brave{Key: strings.TrimSpace(braveKey)}
	}
	return DuckDuckGo{}
}
