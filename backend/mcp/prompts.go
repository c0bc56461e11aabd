package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// PromptInfo is a server's prompt, offered as the slash command /server:name.
type PromptInfo struct {
	Server      string           `json:"server"`
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// listPrompts reads the server's prompts (every page), when it has any.
func (c *conn) listPrompts(ctx context.Context) error {
	if c.client.GetServerCapabilities().Prompts == nil {
		return nil
	}
	res, err := c.client.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		return fmt.Errorf("list prompts: %w", err)
	}
	c.mu.Lock()
	c.prompts = res.Prompts
	c.mu.Unlock()
	return nil
}

// Prompts lists the prompts of the connected servers, by server and name.
func (m *Manager) Prompts() []PromptInfo {
	out := []PromptInfo{}
	for _, s := range m.list() {
		c, err := s.connected()
		if err != nil {
			continue
		}
		c.mu.Lock()
		ps := append([]mcp.Prompt(nil), c.prompts...)
		c.mu.Unlock()
		for _, p := range ps {
			info := PromptInfo{Server: s.name, Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				info.Arguments = append(info.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			out = append(out, info)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Server+":"+out[i].Name < out[j].Server+":"+out[j].Name })
	return out
}

// ExpandPrompt turns a slash command "/server:prompt rest" into the prompt's text: rest is
// read as name=value pairs ("city=Paris state=TX", values quoted when they hold spaces), or, for
// a prompt with one argument (or one required), as that argument's value. The messages the
// server returns are joined (an assistant's prefixed "assistant:"); embedded resources bring
// their text.
func (m *Manager) ExpandPrompt(ctx context.Context, command string) (string, error) {
	head, rest, _ := strings.Cut(strings.TrimSpace(command), " ")
	server, name, ok := strings.Cut(strings.TrimPrefix(head, "/"), ":")
	if !strings.HasPrefix(head, "/") || !ok {
		return "", fmt.Errorf("%q is not a prompt command (/server:prompt …)", head)
	}
	var info *PromptInfo
	for _, p := range m.Prompts() {
		if p.Server == server && p.Name == name {
			info = &p
			break
		}
	}
	if info == nil {
		return "", fmt.Errorf("no MCP server offers the prompt /%s:%s", server, name)
	}
	args, err := promptArgs(*info, strings.TrimSpace(rest))
	if err != nil {
		return "", err
	}
	s, err := m.server(server)
	if err != nil {
		return "", err
	}
	c, err := s.connected()
	if err != nil {
		return "", err
	}
	req := mcp.GetPromptRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	ctx, cancel := context.WithTimeout(ctx, s.config().CallTimeout())
	defer cancel()
	res, err := c.client.GetPrompt(ctx, req)
	if err != nil {
		return "", fmt.Errorf("MCP server %s: prompt %s: %w", server, name, err)
	}
	var parts []string
	for _, msg := range res.Messages {
		t := contentText(msg.Content)
		if msg.Role == mcp.RoleAssistant {
			t = "assistant: " + t
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "\n\n"), nil
}

// promptArgs reads the arguments of a prompt command, checking the required ones.
func promptArgs(p PromptInfo, rest string) (map[string]string, error) {
	args := map[string]string{}
	known := map[string]bool{}
	for _, a := range p.Arguments {
		known[a.Name] = true
	}
	pairs, ok := splitPairs(rest, known)
	switch {
	case ok:
		args = pairs
	case rest != "":
		var target string
		for _, a := range p.Arguments {
			if a.Required || len(p.Arguments) == 1 {
				if target != "" {
					return nil, fmt.Errorf("/%s:%s takes %s: give them as name=value", p.Server, p.Name, argList(p))
				}
				target = a.Name
			}
		}
		if target == "" {
			return nil, fmt.Errorf("/%s:%s takes no argument", p.Server, p.Name)
		}
		args[target] = rest
	}
	for _, a := range p.Arguments {
		if a.Required && args[a.Name] == "" {
			return nil, fmt.Errorf("/%s:%s needs %s (it takes %s)", p.Server, p.Name, a.Name, argList(p))
		}
	}
	return args, nil
}

func argList(p PromptInfo) string {
	var names []string
	for _, a := range p.Arguments {
		n := a.Name
		if !a.Required {
			n += " (optional)"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// splitPairs reads "a=1 b='two words'" when every word is a known name=value; ok is false
// otherwise (the text is one free value).
func splitPairs(s string, known map[string]bool) (map[string]string, bool) {
	out := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		k, v, ok := strings.Cut(s, "=")
		if !ok || !known[k] || strings.ContainsAny(k, " \t") {
			return nil, false
		}
		if v != "" && (v[0] == '"' || v[0] == '\'') {
			end := strings.IndexByte(v[1:], v[0])
			if end < 0 {
				return nil, false
			}
			out[k], s = v[1:end+1], v[end+2:]
			continue
		}
		val, next, _ := strings.Cut(v, " ")
		out[k], s = val, next
	}
	return out, len(out) > 0
}

// contentText is the text of a prompt message's content.
func contentText(c mcp.Content) string {
	switch x := deref(c).(type) {
	case mcp.TextContent:
		return x.Text
	case mcp.EmbeddedResource:
		if t, ok := deref(x.Resource).(mcp.TextResourceContents); ok {
			return fmt.Sprintf("[resource %s]\n%s", t.URI, t.Text)
		}
		return "[a binary resource]"
	case mcp.ImageContent:
		return "[an image: " + x.MIMEType + "]"
	}
	return ""
}
