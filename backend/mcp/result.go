package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/tools"
)

// ResultMeta is what a call's Result carries for the UI and the log (never the model).
type ResultMeta struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Structured is the call's structured content, when it had any.
	Structured json.RawMessage `json:"structured,omitempty"`
	// Resources are the URIs of the embedded resources and links.
	Resources []string `json:"resources,omitempty"`
	// Progress is the last progress notification.
	Progress *Progress `json:"progress,omitempty"`
}

// toResult turns a call's content into what the model reads: text as is, images attached (for
// vision models) and named in the text, embedded resources with their text (binary ones by
// their URI, type and size), resource links, and structured content as JSON when the text
// does not already carry it.
func toResult(server, tool string, r *mcp.CallToolResult) tools.Result {
	meta := &ResultMeta{Server: server, Tool: tool}
	var out tools.Result
	var parts []string
	for _, c := range r.Content {
		switch x := deref(c).(type) {
		case mcp.TextContent:
			parts = append(parts, x.Text)
		case mcp.ImageContent:
			data, err := base64.StdEncoding.DecodeString(x.Data)
			if err != nil {
				parts = append(parts, fmt.Sprintf("[an image (%s) that is not valid base64]", x.MIMEType))
				continue
			}
			out.Images = append(out.Images, data)
			parts = append(parts, fmt.Sprintf("[image %d attached: %s, %d bytes]", len(out.Images), x.MIMEType, len(data)))
		case mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s), %d bytes of base64, not shown]", x.MIMEType, len(x.Data)))
		case mcp.ResourceLink:
			meta.Resources = append(meta.Resources, x.URI)
			line := fmt.Sprintf("[resource link %s: %s", x.Name, x.URI)
			if x.MIMEType != "" {
				line += " (" + x.MIMEType + ")"
			}
			if x.Description != "" {
				line += " — " + x.Description
			}
			parts = append(parts, line+"]")
		case mcp.EmbeddedResource:
			parts = append(parts, embedded(x.Resource, meta, &out))
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if s := structured(r); s != nil {
		meta.Structured = s
		var compact bytes.Buffer
		if json.Compact(&compact, s) == nil && !strings.Contains(stripSpace(text), stripSpace(compact.String())) {
			if text != "" {
				text += "\n"
			}
			text += "Structured result: " + compact.String()
		}
	}
	if text == "" {
		text = "(the tool returned nothing)"
	}
	out.Text, out.IsError, out.Meta = text, r.IsError, meta
	return out
}

func embedded(rc mcp.ResourceContents, meta *ResultMeta, out *tools.Result) string {
	switch x := deref(rc).(type) {
	case mcp.TextResourceContents:
		meta.Resources = append(meta.Resources, x.URI)
		return fmt.Sprintf("[resource %s]\n%s", x.URI, x.Text)
	case mcp.BlobResourceContents:
		meta.Resources = append(meta.Resources, x.URI)
		data, err := base64.StdEncoding.DecodeString(x.Blob)
		if err == nil && strings.HasPrefix(x.MIMEType, "image/") {
			out.Images = append(out.Images, data)
			return fmt.Sprintf("[resource %s: image %d attached, %s, %d bytes]", x.URI, len(out.Images), x.MIMEType, len(data))
		}
		return fmt.Sprintf("[resource %s: binary %s, %d bytes, not shown]", x.URI, x.MIMEType, len(data))
	}
	return "[a resource of an unknown kind]"
}

// deref turns the pointer forms of content into values, so one switch covers both.
func deref(c any) any {
	switch x := c.(type) {
	case *mcp.TextContent:
		return *x
	case *mcp.ImageContent:
		return *x
	case *mcp.AudioContent:
		return *x
	case *mcp.ResourceLink:
		return *x
	case *mcp.EmbeddedResource:
		return *x
	case *mcp.TextResourceContents:
		return *x
	case *mcp.BlobResourceContents:
		return *x
	}
	return c
}

func structured(r *mcp.CallToolResult) json.RawMessage {
	if len(r.RawStructuredContent) > 0 && string(r.RawStructuredContent) != "null" {
		return r.RawStructuredContent
	}
	if r.StructuredContent == nil {
		return nil
	}
	b, err := json.Marshal(r.StructuredContent)
	if err != nil {
		return nil
	}
	return b
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, s)
}
