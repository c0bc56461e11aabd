//go:build unix

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/llm/ollama/manage"
	"github.com/tofu-research/tofu/backend/llm/ollama/realollama"
	"github.com/tofu-research/tofu/backend/llm/ollama/registrytest"
)

// TestRealPullEndToEnd pulls a model from Settings → Local models in headless Chromium on
// `tofu serve`, through a real Ollama (realollama) from a registry served here, which holds the
// weights at half way: the bar shows bytes, speed and time left (build/test-shots/pull-progress.png),
// Cancel stops it, and the registry sent exactly half. Needs the built front end and the
// Ollama binary: make test-ollama runs it with TOFU_E2E=1.
func TestRealPullEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	bin := realollama.Binary(t)
	srv := realollama.Start(t, bin)
	isolate(t, srv.URL)
	reg := registrytest.New(t)
	var gguf bytes.Buffer
	if err := realollama.WriteGGUF(&gguf, realollama.DefaultTinyModel); err != nil {
		t.Fatal(err)
	}
	man := reg.OllamaModel("tofu/tiny:f32", gguf.Bytes(), realollama.ToolsTemplate, "117K", "F32")
	weights := man.Layers[0]
	half := weights.Size / 2
	gate := reg.Gate(weights.Digest, 0)

	_, url, stop := serveE2E(t, root)
	defer stop()
	// The page's event stream, read here too: once the layer's first report (nothing fetched)
	// has gone out, half of it comes and waits there.
	events, unfollow := pullEvents(t, url)
	defer unfollow() // before stop: the server's shutdown waits for its event streams
	go func() {
		for p := range events {
			if p.Status == "pulling "+weights.Digest[7:19] {
				gate.MoveTo(half)
				break
			}
		}
		for range events {
		}
	}()
	runBrowser(t, root, url, "pull.e2e.mjs", "pull-progress.png", "TOFU_PULL_NAME="+reg.Name("tofu/tiny:f32"))
	if got := reg.Served(weights.Digest); got != half {
		t.Fatalf("the registry sent %d bytes of the weights, want %d (half)", got, half)
	}
}

// pullEvents follows `tofu serve`'s event stream (docs/API.md) and passes on the models:pull
// events, until unfollow.
func pullEvents(t *testing.T, url string) (events <-chan manage.Progress, unfollow func()) {
	t.Helper()
	base, token, _ := strings.Cut(url, "/#token=")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/events", nil)
	req.Header.Set("X-Tofu-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan manage.Progress, 1024)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		readEvents(resp.Body, func(topic string, data json.RawMessage) {
			var p manage.Progress
			if topic == app.TopicPull && json.Unmarshal(data, &p) == nil {
				out <- p
			}
		})
	}()
	return out, cancel
}

// TestRealStartOllamaEndToEnd: a first run with Ollama installed (on PATH) but not running
// offers Start Ollama; it starts as Tofu's child at the address Tofu was given, and stops
// when Tofu does (build/test-shots/start-ollama-before.png, start-ollama.png).
func TestRealStartOllamaEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	bin := realollama.Binary(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("OLLAMA_MODELS", filepath.Join(home, "models"))
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + l.Addr().String()
	l.Close()
	isolate(t, addr)

	_, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "startollama.e2e.mjs", "start-ollama.png")
	m, _ := manage.New(addr)
	if !m.Running(context.Background()) {
		t.Fatal("Ollama does not answer after Start Ollama")
	}
	stop()
	if m.Running(context.Background()) {
		t.Fatal("the Ollama Tofu started still answers after Tofu stopped")
	}
}
