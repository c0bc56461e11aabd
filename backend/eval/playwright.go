package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// playwrightSnapshot starts Playwright MCP (command) attached to the Chromium at cdp, opens
// url and returns the o200k tokens of its browser_snapshot reply, and the count and cost of
// the tool schemas it lists.
func playwrightSnapshot(ctx context.Context, command []string, cdp, url string) (snapshot, nTools, schema int, err error) {
	if cdp == "" {
		return 0, 0, 0, fmt.Errorf("no browser to attach to")
	}
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	// Its snapshot and console files go to a temporary folder, not the working directory.
	out, err := os.MkdirTemp("", "tofu-playwright-mcp-")
	if err != nil {
		return 0, 0, 0, err
	}
	defer os.RemoveAll(out)
	args := append(append([]string(nil), command[1:]...), "--cdp-endpoint", cdp, "--output-dir", out)
	c, err := client.NewStdioMCPClient(command[0], nil, args...)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("start %s: %w", command[0], err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "tofu-eval", Version: "1"}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		return 0, 0, 0, fmt.Errorf("initialize: %w", err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("list tools: %w", err)
	}
	var specs []llm.ToolSpec
	for _, t := range list.Tools {
		params, err := json.Marshal(t.InputSchema)
		if err != nil {
			return 0, 0, 0, err
		}
		if len(t.RawInputSchema) > 0 {
			params = t.RawInputSchema
		}
		specs = append(specs, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: params})
	}
	schema = tokens.CountRequest(llm.Request{Tools: specs}) - tokens.PerReply
	call := func(name string, args map[string]any) (string, error) {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		var b strings.Builder
		for _, part := range res.Content {
			if tc, ok := part.(mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		if res.IsError {
			return "", fmt.Errorf("%s: %s", name, b.String())
		}
		return b.String(), nil
	}
	if _, err := call("browser_navigate", map[string]any{"url": url}); err != nil {
		return 0, 0, 0, err
	}
	text, err := call("browser_snapshot", map[string]any{})
	if err != nil {
		return 0, 0, 0, err
	}
	return tokens.Count(text), len(specs), schema, nil
}
