package eval

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/shareddata"
	"github.com/tofu-research/tofu/backend/testtools"
)

// PlaywrightTodoMVCTokens are Playwright MCP v0.0.83's snapshot of TodoMVC with 3 todos
// (o200k, measured for issue 11): Tofu's must cost at most half.
var PlaywrightTodoMVCTokens = map[string]int{"todomvc-react": 449, "todomvc-vue": 471}

func browserSites(t *testing.T) []string {
	shareddata.Require(t, "web", "todomvc")
	dirs := []string{filepath.Join("testdata", "browser", "todomvc-react"), filepath.Join("testdata", "browser", "todomvc-vue")}
	for _, s := range []string{"forms", "frames", "dialogs", "tabs", "slow", "injection", "widgets", "downloads"} {
		dirs = append(dirs, filepath.Join("..", "browser", "testdata", "sites", s))
	}
	return dirs
}

// TestEvalBrowser runs every scenario: each passes with every step addressable from the
// snapshot (hover-only controls included), and TodoMVC's snapshots stay under half of
// Playwright MCP's.
func TestEvalBrowser(t *testing.T) {
	if _, err := browser.FindChromium(""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := EvalBrowser(ctx, browserSites(t), BrowserOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Sites {
		t.Logf("%s: passed %v, %d steps, %d unaddressable, snapshot %.0f/%d tokens, html %d, text %d, final %d",
			s.Site, s.Passed, s.Steps, s.Unaddressable, s.SnapshotTokensMean, s.SnapshotTokensMax, s.HTMLTokens, s.TextTokens, s.FinalSnapshotTokens)
		if !s.Passed || s.Unaddressable > 0 || s.Error != "" {
			t.Errorf("%s: passed %v, %d unaddressable: %s", s.Site, s.Passed, s.Unaddressable, s.Error)
		}
		if pw, ok := PlaywrightTodoMVCTokens[s.Site]; ok && s.SnapshotTokensMax*2 > pw {
			t.Errorf("%s: the snapshot with 3 todos costs up to %d tokens, over half of Playwright MCP's %d", s.Site, s.SnapshotTokensMax, pw)
		}
	}
}

// TestEvalBrowserBesidePlaywright drives Playwright MCP (build/tools) against the same
// Chromium: on the same TodoMVC page Tofu's snapshot costs at most half of its.
func TestEvalBrowserBesidePlaywright(t *testing.T) {
	cli := testtools.Node(t, "@playwright/mcp", "cli.js")
	bin, err := browser.FindChromium("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := EvalBrowser(ctx, browserSites(t)[:2], BrowserOptions{
		Playwright: []string{"node", cli, "--headless", "--browser", "chromium", "--executable-path", bin, "--no-sandbox"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Playwright MCP: %d tools, %d tokens of schemas", rep.PlaywrightTools, rep.PlaywrightToolSchemaTokens)
	for _, s := range rep.Sites {
		t.Logf("%s: Tofu %d, Playwright MCP %d tokens for the final page", s.Site, s.FinalSnapshotTokens, s.PlaywrightSnapshotTokens)
		if s.PlaywrightSnapshotTokens == 0 || s.FinalSnapshotTokens*2 > s.PlaywrightSnapshotTokens {
			t.Errorf("%s: Tofu %d tokens, Playwright MCP %d (%s)", s.Site, s.FinalSnapshotTokens, s.PlaywrightSnapshotTokens, s.Error)
		}
	}
}
