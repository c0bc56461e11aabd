package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/app"
)

// TestFirstRunEndToEnd opens `tofu serve` with Ollama unreachable in headless Chromium
// (frontend/e2e/firstrun-shot.mjs): the empty conversation shows the Ollama commands and
// "Try the demo"; one click later the scripted model answers a message. The demo provider
// must not reach config.json. Runs when TOFU_E2E=1; not parallel: it sets environment variables.
func TestFirstRunEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	configHome := t.TempDir()
	t.Setenv("OLLAMA_HOST", closed)
	t.Setenv("XDG_CONFIG_HOME", configHome)
	t.Setenv("TOFU_KEYRING", "off")

	_, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "firstrun-shot.mjs", "firstrun/x.png")
	stop()

	raw, err := os.ReadFile(filepath.Join(configHome, "tofu", "config.json"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), app.DemoProvider) {
		t.Fatalf("the demo provider was saved:\n%s", raw)
	}
}
