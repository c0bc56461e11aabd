package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/library"
)

// Importer adds a paper to the library from a PDF file, an arXiv id or URL, or a web address
// (the app's, which checks that web access is on before downloading).
type Importer func(ctx context.Context, source string) (library.Info, error)

// importTool is paper_import, offered when Options.Import is set.
func (h *handlers) importTool() server.ServerTool {
	return server.ServerTool{Tool: mcp.NewTool("paper_import",
		mcp.WithDescription("Add a paper to Tofu's library (the window's): a PDF file by absolute path, an arXiv id or URL, or the web address of a PDF (downloads need web access on in Tofu's settings). Returns the paper id for paper_ask and paper_read."),
		mcp.WithString("source", mcp.Required(), mcp.Description(`absolute path of a PDF, an arXiv id ("2401.12345") or an https:// address`))),
		Handler: h.paperImport}
}

func (h *handlers) paperImport(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	source, err := req.RequireString("source")
	if err != nil {
		return fail(err.Error()), nil
	}
	// A relative path would be found in the server's directory, which the client cannot know.
	if _, notArxiv := paper.ParseArxivID(source); notArxiv != nil && !filepath.IsAbs(source) && !isWebAddress(source) {
		return fail(fmt.Sprintf("%q is not an absolute path, an arXiv id or an https:// address", source)), nil
	}
	info, err := h.o.Import(ctx, source)
	if err != nil {
		return fail(err.Error()), nil
	}
	return text(fmt.Sprintf("Paper %s in the library: %q, %d pages, %d passages. Ask about it with paper_ask (paper=%s).", info.ID, info.Title, info.Pages, info.Chunks, info.ID)), nil
}

func isWebAddress(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}
