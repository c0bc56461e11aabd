package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Resources a user can attach to a message: what the connected servers list (resources/list
// and resources/templates/list), read when chosen (resources/read).

// maxListed bounds the resources listed per server (a server may list a whole disk).
const maxListed = 500

// MaxAttached bounds the text of one attached resource, in bytes: past it the text is cut
// with a note saying so.
const MaxAttached = 200_000

// ResourceInfo is one resource, or resource template, of a connected server.
type ResourceInfo struct {
	Server      string `json:"server"`
	URI         string `json:"uri"` // the template itself when Template
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mime_type,omitempty"`
	// Template: URI is an RFC 6570 template whose Variables the user fills in.
	Template  bool     `json:"template,omitempty"`
	Variables []string `json:"variables,omitempty"`
}

// ResourceList is the resources of the connected servers, and the servers that failed to
// list theirs.
type ResourceList struct {
	Resources []ResourceInfo `json:"resources"`
	Errors    []string       `json:"errors,omitempty"`
}

// Resources lists the resources and templates of every connected server that offers any,
// sorted by server; a server's failure is reported, not fatal.
func (m *Manager) Resources(ctx context.Context) ResourceList {
	out := ResourceList{Resources: []ResourceInfo{}}
	for _, s := range m.list() {
		c, err := s.connected()
		if err != nil || c.client.GetServerCapabilities().Resources == nil {
			continue
		}
		rs, err := c.listResources(ctx, s.name)
		if err != nil {
			out.Errors = append(out.Errors, fmt.Sprintf("MCP server %s: %v", s.name, err))
		}
		out.Resources = append(out.Resources, rs...)
	}
	sort.SliceStable(out.Resources, func(i, j int) bool { return out.Resources[i].Server < out.Resources[j].Server })
	return out
}

// listResources reads a server's resources page by page (up to maxListed), then its
// templates.
func (c *conn) listResources(ctx context.Context, server string) ([]ResourceInfo, error) {
	var out []ResourceInfo
	req := mcp.ListResourcesRequest{}
	for len(out) < maxListed {
		page, err := c.client.ListResourcesByPage(ctx, req)
		if err != nil {
			return out, fmt.Errorf("list resources: %w", err)
		}
		for _, r := range page.Resources {
			out = append(out, ResourceInfo{Server: server, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MimeType: r.MIMEType})
		}
		if page.NextCursor == "" || page.NextCursor == req.Params.Cursor {
			break
		}
		req.Params.Cursor = page.NextCursor
	}
	if len(out) > maxListed {
		out = out[:maxListed]
	}
	tpl, err := c.client.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		return out, fmt.Errorf("list resource templates: %w", err)
	}
	for _, t := range tpl.ResourceTemplates {
		if t.URITemplate == nil || t.URITemplate.Template == nil {
			continue
		}
		out = append(out, ResourceInfo{Server: server, URI: t.URITemplate.Raw(), Name: t.Name, Title: t.Title, Description: t.Description,
			MimeType: t.MIMEType, Template: true, Variables: t.URITemplate.Varnames()})
	}
	return out, nil
}

// Expand fills a resource template's variables.
func Expand(template string, vars map[string]string) (string, error) {
	t, err := uritemplate.New(template)
	if err != nil {
		return "", fmt.Errorf("resource template %q: %w", template, err)
	}
	values := uritemplate.Values{}
	for _, name := range t.Varnames() {
		v := strings.TrimSpace(vars[name])
		if v == "" {
			return "", fmt.Errorf("resource template %q: give %s a value", template, name)
		}
		values.Set(name, uritemplate.String(v))
	}
	return t.Expand(values)
}

// Resource is a resource as read: its text contents joined, binary contents described.
type Resource struct {
	Server   string `json:"server"`
	URI      string `json:"uri"`
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	Text     string `json:"text"`
	// Size is the bytes the server sent (text, and binary contents decoded), before any cut.
	Size int `json:"size"`
}

// ReadResource reads uri from server under the server's call timeout.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (Resource, error) {
	s, err := m.server(server)
	if err != nil {
		return Resource{}, err
	}
	c, err := s.connected()
	if err != nil {
		return Resource{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.config().CallTimeout())
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.client.ReadResource(ctx, req)
	if err != nil {
		return Resource{}, fmt.Errorf("MCP server %s: read %s: %w", server, uri, err)
	}
	out := Resource{Server: server, URI: uri}
	var parts []string
	for _, rc := range res.Contents {
		switch x := deref(rc).(type) {
		case mcp.TextResourceContents:
			out.Size += len(x.Text)
			if out.MimeType == "" {
				out.MimeType = x.MIMEType
			}
			parts = append(parts, x.Text)
		case mcp.BlobResourceContents:
			n := base64.StdEncoding.DecodedLen(len(x.Blob))
			if b, err := base64.StdEncoding.DecodeString(x.Blob); err == nil {
				n = len(b)
			}
			out.Size += n
			if out.MimeType == "" {
				out.MimeType = x.MIMEType
			}
			parts = append(parts, fmt.Sprintf("[binary contents of %s: %s, %d bytes, not included]", x.URI, x.MIMEType, n))
		}
	}
	out.Text = cutText(strings.Join(parts, "\n\n"), MaxAttached)
	return out, nil
}

// cutText cuts s to at most n bytes on a rune boundary, saying so.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[cut: %d of %d bytes attached]", cut, len(s))
}
