package lang

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/store"
)

// scripted is a translator for the tests: it upper-cases the prose, keeps placeholders, and
// does what its fields say.
type scripted struct {
	calls    atomic.Int32
	dropOnce bool // drop the first placeholder on attempt 0
	fail     error
	block    bool // wait for the context to end
}

func (s *scripted) Translate(ctx context.Context, text, _, _ string, attempt int) (string, error) {
	s.calls.Add(1)
	if s.block {
		<-ctx.Done()
		return "", ctx.Err()
	}
	if s.fail != nil {
		return "", s.fail
	}
	out := canonical.ReplaceAllStringFunc(strings.ToUpper(text), strings.ToLower)
	out = strings.ReplaceAll(out, "[[t", "[[T")
	if s.dropOnce && attempt == 0 {
		out = canonical.ReplaceAllString(out, "")
	}
	return out, nil
}

const sample = "Bonjour, lance `go test ./...` puis ouvre https://go.dev/doc.\n\nLe fichier /etc/hosts pèse 2 KB."

func TestPipelineTranslatesAndRestores(t *testing.T) {
	t.Parallel()
	p := &Pipeline{Translator: &scripted{}}
	res := p.Translate(context.Background(), sample, "fr", "en")
	want := "BONJOUR, LANCE `go test ./...` PUIS OUVRE https://go.dev/doc.\n\nLE FICHIER /etc/hosts PÈSE 2 KB."
	if res.Text != want || res.Fallback != "" {
		t.Fatalf("got %q (fallback %q), want %q", res.Text, res.Fallback, want)
	}
	if res.Spans != 4 {
		t.Errorf("spans %d, want 4", res.Spans)
	}
}

func TestPipelineRetriesAChunkThatLostAPlaceholder(t *testing.T) {
	t.Parallel()
	tr := &scripted{dropOnce: true}
	p := &Pipeline{Translator: tr, MaxChunk: 40}
	res := p.Translate(context.Background(), sample, "fr", "en")
	if res.Fallback != "" || !strings.Contains(res.Text, "`go test ./...`") || !strings.Contains(res.Text, "/etc/hosts") {
		t.Fatalf("got %q, fallback %q", res.Text, res.Fallback)
	}
	if res.Chunks != 2 || res.Retries != 2 || tr.calls.Load() != 4 {
		t.Errorf("chunks %d retries %d calls %d, want 2, 2 and 4", res.Chunks, res.Retries, tr.calls.Load())
	}
}

func TestPipelineFallsBackToTheOriginal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		tr   *scripted
		p    Pipeline
		want string
	}{
		{"model error", &scripted{fail: errors.New("502 bad gateway")}, Pipeline{}, "502 bad gateway"},
		{"timeout", &scripted{block: true}, Pipeline{Timeout: time.Millisecond}, "timed out"},
		{"always lost", nil, Pipeline{Retries: 1}, "dropping protected text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.p
			if c.tr != nil {
				p.Translator = c.tr
			} else {
				p.Translator = dropAll{}
			}
			res := p.Translate(context.Background(), sample, "fr", "en")
			if res.Text != sample || !strings.Contains(res.Fallback, c.want) {
				t.Fatalf("text %q fallback %q, want the original and %q", res.Text, res.Fallback, c.want)
			}
		})
	}
}

type dropAll struct{}

func (dropAll) Translate(_ context.Context, text, _, _ string, _ int) (string, error) {
	return canonical.ReplaceAllString(text, ""), nil
}

func TestPipelineCachesChunksInBadger(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tr := &scripted{}
	p := &Pipeline{Translator: tr, Cache: StoreCache{Store: st}, Model: "m", MaxChunk: 40}
	first := p.Translate(context.Background(), sample, "fr", "en")
	calls := tr.calls.Load()
	second := p.Translate(context.Background(), sample, "fr", "en")
	if tr.calls.Load() != calls || second.Cached != second.Chunks || second.Text != first.Text {
		t.Fatalf("second run: %d more calls, %d/%d cached, same text %v", tr.calls.Load()-calls, second.Cached, second.Chunks, second.Text == first.Text)
	}
	// Another model's translation is not this one's.
	p.Model = "other"
	if third := p.Translate(context.Background(), sample, "fr", "en"); third.Cached != 0 {
		t.Errorf("another model read %d cached chunks", third.Cached)
	}
}

func TestPipelineKeepsParagraphOrderAcrossParallelChunks(t *testing.T) {
	t.Parallel()
	var paras []string
	for i := range 40 {
		paras = append(paras, fmt.Sprintf("paragraphe %d avec `code_%d` dedans", i, i))
	}
	text := strings.Join(paras, "\n\n\n")
	p := &Pipeline{Translator: &scripted{}, MaxChunk: 100, Parallel: 8}
	res := p.Translate(context.Background(), text, "fr", "en")
	if res.Chunks < 10 {
		t.Fatalf("%d chunks, want the text cut at paragraphs", res.Chunks)
	}
	want := canonical.ReplaceAllString(strings.ToUpper(Protect(text).Text), "")
	got := canonical.ReplaceAllString(strings.ToUpper(Protect(res.Text).Text), "")
	if got != want {
		t.Errorf("paragraphs out of order:\n%s", res.Text)
	}
	for i := range 40 {
		if !strings.Contains(res.Text, fmt.Sprintf("`code_%d`", i)) {
			t.Errorf("`code_%d` lost", i)
		}
	}
}

func TestAdversaryRoundTripRestoresEverySpan(t *testing.T) {
	t.Parallel()
	p := &Pipeline{Translator: Adversary{}, MaxChunk: 60}
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "Voir `a.b%d()` et https://x.org/y puis /tmp/z.txt à 3 ms.\n\nEncore header_rows, getName et $x^%d$.\n\n```\ncode\n```\n\n", i, i)
	}
	text := b.String()
	res := p.Translate(context.Background(), text, "fr", "en")
	if res.Fallback != "" {
		t.Fatal(res.Fallback)
	}
	for _, s := range Protect(text).Spans {
		if !strings.Contains(res.Text, s.Text) {
			t.Errorf("%q lost in %q", s.Text, res.Text)
		}
	}
	if res.Retries == 0 {
		t.Errorf("the adversary dropped nothing in %d chunks: no retry exercised", res.Chunks)
	}
}
