package serve

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/shareddata"
	"github.com/tofu-research/tofu/backend/store"
)

// paper_import adds a PDF by absolute path to the library the other tools read, and refuses
// a relative path with the reason; without an importer the tool is not offered.
func TestPaperImportTool(t *testing.T) {
	t.Parallel()
	pdf := shareddata.Require(t, "papers", "elegantpaper_en", "paper.pdf")
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lib := library.New(st, library.Options{})
	importer := func(ctx context.Context, source string) (library.Info, error) {
		f, err := os.Open(source)
		if err != nil {
			return library.Info{}, err
		}
		defer f.Close()
		fi, _ := f.Stat()
		return lib.Import(ctx, "paper.pdf", f, fi.Size(), "")
	}
	call := func(o Options, tool string, args map[string]any) (*mcpgo.CallToolResult, []string) {
		c, err := client.NewInProcessClient(New(o))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		init := mcpgo.InitializeRequest{}
		init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatal(err)
		}
		list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
		}
		if tool == "" {
			return nil, names
		}
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res, names
	}
	resultText := func(r *mcpgo.CallToolResult) string {
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(mcpgo.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	o := Options{Store: st, Library: lib, Import: importer}
	res, names := call(o, "paper_import", map[string]any{"source": pdf})
	if res.IsError || !strings.Contains(resultText(res), "ElegantPaper") || !strings.Contains(strings.Join(names, " "), "paper_import") {
		t.Fatalf("paper_import: %s (tools %v)", resultText(res), names)
	}
	if list, _ := lib.List(); len(list) != 1 || !strings.Contains(resultText(res), "Paper "+list[0].ID) {
		t.Fatalf("library after the import: %+v", list)
	}
	if res, _ := call(o, "paper_import", map[string]any{"source": "paper.pdf"}); !res.IsError || !strings.Contains(resultText(res), "not an absolute path") {
		t.Fatalf("a relative path: %s", resultText(res))
	}
	if _, names := call(Options{Store: st, Library: lib}, "", nil); strings.Contains(strings.Join(names, " "), "paper_import") {
		t.Fatalf("paper_import offered without an importer: %v", names)
	}
}
