package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// ToolName is the name the model calls a server's tool by: mcp__<server>__<tool>, with what
// providers refuse in names replaced by '_' and long names cut with a hash, so two tools never
// share a name.
func ToolName(server, tool string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
				return r
			}
			return '_'
		}, s)
	}
	name := "mcp__" + clean(server) + "__" + clean(tool)
	if len(name) <= 64 {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return name[:55] + "_" + hex.EncodeToString(sum[:4])
}

// maxDescription bounds a tool's description as offered: some servers ship manuals.
const maxDescription = 2000

// Tool is one tool of an MCP server, offered to a turn.
type Tool struct {
	m        *Manager
	server   string
	cfg      config.MCPServer
	def      mcp.Tool
	spec     llm.ToolSpec
	requests Requests
}

// schemaOf is a tool's input schema as a JSON object, with the type and properties some
// providers insist on.
func schemaOf(def mcp.Tool) map[string]any {
	raw := def.RawInputSchema
	if len(raw) == 0 {
		raw, _ = json.Marshal(def.InputSchema)
	}
	var schema map[string]any
	if json.Unmarshal(raw, &schema) != nil || schema == nil {
		schema = map[string]any{}
	}
	if schema["type"] == nil {
		schema["type"] = "object"
	}
	if p, ok := schema["properties"]; !ok || p == nil {
		schema["properties"] = map[string]any{}
	}
	return schema
}

func newTool(m *Manager, server string, cfg config.MCPServer, def mcp.Tool, requests Requests) *Tool {
	schema := schemaOf(def)
	params, _ := json.Marshal(schema)
	desc := strings.TrimSpace(def.Description)
	if desc == "" {
		desc = def.Title
	}
	if len(desc) > maxDescription {
		desc = desc[:maxDescription] + "…"
	}
	desc = "[MCP " + server + "] " + desc
	return &Tool{m: m, server: server, cfg: cfg, def: def, requests: requests,
		spec: llm.ToolSpec{Name: ToolName(server, def.Name), Description: desc, Parameters: params}}
}

// Spec implements tools.Tool.
func (t *Tool) Spec() llm.ToolSpec { return t.spec }

// ReadOnly implements tools.Tool: a server's read-only hint counts only when the user trusts it.
func (t *Tool) ReadOnly() bool { return t.cfg.Trusted && readOnlyHint(t.def) }

// Access implements tools.Tool: a call of the server's tool, which the policy asks about
// unless a rule allows it.
func (t *Tool) Access(call tools.Call) ([]tools.Access, *tools.ArgError) {
	if _, aerr := tools.ParseObject(t.spec.Name, call.Arguments); aerr != nil {
		return nil, aerr
	}
	return []tools.Access{{Kind: tools.AccessMCP, Target: t.server + "/" + t.def.Name, ReadOnly: t.ReadOnly()}}, nil
}

// Run implements tools.Tool. The server's failures (it crashed, timed out, is not connected)
// are results the model reads; only an ended ctx is an error.
func (t *Tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	args, aerr := tools.ParseObject(t.spec.Name, call.Arguments)
	if aerr != nil {
		return aerr.Result(), nil
	}
	o := CallOptions{Requests: t.requests}
	if call.Progress != nil {
		o.Progress = func(p Progress) {
			call.Progress(tools.Progress{Done: p.Progress, Total: p.Total, Message: p.Message})
		}
	}
	res, err := t.m.CallTool(ctx, t.server, t.def.Name, args, o)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf(err.Error()), nil
	}
	return res, nil
}

// Family is the tool's family for a conversation's Tools menu: its server's (the session
// package reads it to turn a server off in one conversation).
func (t *Tool) Family() store.ToolFamily { return store.MCPFamily(t.server) }
