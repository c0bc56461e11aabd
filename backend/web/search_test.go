package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// engines serves SearXNG's JSON, Brave's JSON and DuckDuckGo's HTML on loopback, each with a
// duplicate (the same page under www. and a tracking parameter) and one off-topic result.
func engines(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/searx/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "format", 400)
			return
		}
		w.Write([]byte(`{"results":[{"title":"Celebrity news today","url":"https://gossip.example/today","content":"nothing about it"},` +
			`{"title":"Pressing tofu: a guide","url":"https://www.soy.example/press?utm_source=x","content":"how to press tofu for ` + q + `"},` +
			`{"title":"Tofu press review","url":"https://soy.example/review","content":"press tofu faster"}]}`))
	})
	mux.HandleFunc("/brave", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Subscription-Token") != "k3y" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"web":{"results":[{"title":"Nigari or gypsum","url":"https://soy.example/coagulants","description":"coagulants for tofu"}]}}`))
	})
	mux.HandleFunc("/ddg/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<html><body>
<div class="result result--ad"><a class="result__a" href="https://ads.example/buy">Buy tofu presses</a></div>
<div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fsoy.example%2Fpress%2F&rut=x">Pressing tofu: a guide</a><a class="result__snippet">Press tofu under a pan.</a></div>
<div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fsoy.example%2Fmarinade">Tofu marinades</a><a class="result__snippet">Marinate pressed tofu.</a></div>
</body></html>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestSearchProviders(t *testing.T) {
	srv := engines(t)
	f := &Fetcher{Guard: Guard{AllowHosts: []string{"127.0.0.1"}}}
	for _, c := range []struct {
		p     Provider
		first string
		n     int
	}{
		{SearXNG{BaseURL: srv.URL + "/searx"}, "https://www.soy.example/press?utm_source=x", 3},
		{Brave{Key: "k3y", Endpoint: srv.URL + "/brave"}, "https://soy.example/coagulants", 1},
		{DuckDuckGo{Endpoint: srv.URL + "/ddg/"}, "https://soy.example/press/", 2},
	} {
		s := &Searcher{Provider: c.p, Fetcher: f}
		rs, errs := s.Search(context.Background(), []string{"press tofu", "tofu press water"}, 10)
		if len(errs) != 0 || len(rs) != c.n || rs[0].URL != c.first {
			t.Errorf("%s: %+v, %v; want %d results, %s first", c.p.Name(), rs, errs, c.n, c.first)
		}
	}
	// Off topic sinks below the pages about the queries, though the provider put it first.
	s := &Searcher{Provider: SearXNG{BaseURL: srv.URL + "/searx"}, Fetcher: f}
	rs, _ := s.Search(context.Background(), []string{"press tofu"}, 10)
	if rs[len(rs)-1].URL != "https://gossip.example/today" {
		t.Errorf("rerank: %+v", rs)
	}
	// A provider on a private address not allowed: refused, reported per query.
	blocked := &Searcher{Provider: SearXNG{BaseURL: srv.URL + "/searx"}, Fetcher: &Fetcher{}}
	if rs, errs := blocked.Search(context.Background(), []string{"a", "b"}, 10); len(rs) != 0 || len(errs) != 2 || !strings.Contains(errs[0].Error(), "private") {
		t.Errorf("private provider: %v, %v", rs, errs)
	}
}

func TestDedupMergesTheSamePage(t *testing.T) {
	t.Parallel()
	got := Dedup([][]Result{
		{{URL: "https://www.a.example/x/?utm_source=news#top"}, {URL: "https://b.example/"}},
		{{URL: "http://a.example/x"}, {URL: "https://c.example/y?id=2"}, {URL: "https://c.example/y?id=3"}},
	})
	var urls []string
	for _, r := range got {
		urls = append(urls, r.URL)
	}
	want := "https://www.a.example/x/?utm_source=news#top https://b.example/ https://c.example/y?id=2 https://c.example/y?id=3"
	if strings.Join(urls, " ") != want {
		t.Errorf("got %v", urls)
	}
}
