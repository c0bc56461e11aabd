package cli

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/browse"
)

func newEvalBrowserCmd() *cobra.Command {
	var asJSON bool
	var chromium, playwright string
	cmd := &cobra.Command{
		Use:   "browser [--json] SITE_DIR...",
		Short: "Measure the browser tools on scripted sites",
		Long: "Each SITE_DIR holds scenario.json (url, steps naming elements by CSS, a JavaScript\n" +
			"check; see docs/BROWSER.md) and the site's static files (or \"shared\": a folder of the\n" +
			"shared data). Tofu serves the site on loopback, snapshots before each step, finds the\n" +
			"step's element among the snapshot's refs (none: unaddressable), acts as browser_act\n" +
			"does, then runs the check. With --playwright CLI.js (default: build/tools' @playwright/mcp\n" +
			"when present), Playwright MCP attaches to the same Chromium and snapshots the final page.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			opt := eval.BrowserOptions{Chromium: chromium, ToolSchemaTokens: browserSchemaTokens()}
			if playwright == "" {
				playwright = findPlaywrightMCP()
			}
			if playwright != "" && playwright != "none" {
				bin, err := browser.FindChromium(chromium)
				if err != nil {
					return err
				}
				opt.Playwright = []string{"node", playwright, "--headless", "--browser", "chromium", "--executable-path", bin, "--no-sandbox"}
			}
			rep, err := eval.EvalBrowser(ctx, args, opt)
			if err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&chromium, "chromium", "", "the Chromium to run (default: found on the PATH)")
	cmd.Flags().StringVar(&playwright, "playwright", "", "Playwright MCP's cli.js to compare with (none: skip)")
	return cmd
}

// browserSchemaTokens is what the browser tools' specs cost per request once found.
func browserSchemaTokens() int {
	reg := tools.NewRegistry()
	m := browser.New(browser.Options{})
	defer m.Close()
	if err := browse.Add(reg, browse.Options{Browser: m}); err != nil {
		return 0
	}
	reg.Activate(browse.Names...)
	var specs []llm.ToolSpec
	for _, s := range reg.Specs() {
		if strings.HasPrefix(s.Name, "browser_") {
			specs = append(specs, s)
		}
	}
	return tokens.CountRequest(llm.Request{Tools: specs}) - tokens.PerReply
}

// findPlaywrightMCP looks for build/tools' @playwright/mcp above the working directory.
func findPlaywrightMCP() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "build", "tools", "node_modules", "@playwright", "mcp", "cli.js")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
