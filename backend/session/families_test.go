package session

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// serverTool is a tool that names its family, as an MCP server's tools do.
type serverTool struct {
	tools.Tool
	server string
}

func (t serverTool) Family() store.ToolFamily { return store.MCPFamily(t.server) }

func probe(name string) tools.Tool {
	return tools.Define(tools.Def[noParams]{Name: name, Description: "Does " + name + ".", ReadOnly: true,
		Run: func(context.Context, tools.Call, noParams) (tools.Result, error) {
			return tools.Result{Text: name}, nil
		}})
}

// fakeFamilies add deferred tools as the browser, web and MCP families do.
func fakeFamilies() []ToolFamily {
	return []ToolFamily{
		func(reg *tools.Registry, _ Spec) (func(), error) {
			_ = reg.Add(probe("browser_navigate"))
			_ = reg.Add(probe("browser_read"))
			reg.DeferFamily("open, read and act on web pages", "browser_navigate", "browser_read")
			return nil, nil
		},
		func(reg *tools.Registry, _ Spec) (func(), error) {
			_ = reg.Add(probe("web_search"))
			reg.DeferFamily("search the web", "web_search")
			return nil, nil
		},
		func(reg *tools.Registry, _ Spec) (func(), error) {
			_ = reg.Add(serverTool{probe("mcp__files__list"), "files"})
			_ = reg.Add(serverTool{probe("mcp__notes__add"), "notes"})
			reg.DeferUnlisted("mcp__files__list", "mcp__notes__add")
			return nil, nil
		},
	}
}

func offeredTools(req *llm.Request) (names []string, search string) {
	for _, t := range req.Tools {
		names = append(names, t.Name)
		if t.Name == "tool_search" {
			search = t.Description
		}
	}
	return names, search
}

// A family the conversation turned off is not offered, not named in tool_search's description
// and not found by it; the families left on are, and turning it on again brings it back.
func TestToolFamiliesOffPerConversation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fakeFamilies()...)
	f.runner.o.Memory = memory.NewStore(t.TempDir())
	// The model searches for each family, then answers.
	searched := 0
	f.model.DefaultFunc(func(req llm.Request) scripted.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleUser && searched < 1 {
			searched++
			return scripted.Reply{ToolCalls: []llm.ToolCall{
				toolCall("s1", "tool_search", `{"query":"browser pages"}`),
				toolCall("s2", "tool_search", `{"query":"mcp__notes__add"}`),
				toolCall("s3", "tool_search", `{"query":"memory_search"}`),
			}}
		}
		return scripted.Reply{Text: "ok"}
	})
	id := f.session(t, f.ws, "look around")
	off := []store.ToolFamily{store.FamilyBrowser, store.MCPFamily("notes"), store.FamilyCoding, store.FamilyMemory}
	if _, err := f.st.UpdateSession(id, func(i *store.SessionInfo) { i.ToolsOff = off }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
		t.Fatal(err)
	}
	first := f.model.Chats()[0].Request
	names, search := offeredTools(first)
	for _, n := range names {
		if strings.HasPrefix(n, "browser_") || strings.HasPrefix(n, "memory_") || n == "mcp__notes__add" || n == "read_files" || n == "run_command" {
			t.Fatalf("%s offered with its family off: %v", n, names)
		}
	}
	if strings.Contains(search, "browser_") || strings.Contains(search, "memory") || !strings.Contains(search, "web_search") {
		t.Fatalf("tool_search's description: %q", search)
	}
	if strings.Contains(first.Messages[0].Content, "memory_search") {
		t.Fatal("the system prompt tells of memory tools turned off")
	}
	for _, r := range f.results(t, id) {
		if strings.Contains(r.Text, "Enabled") {
			t.Fatalf("tool_search found a tool of a family turned off: %s", r.Text)
		}
	}
	// On again: the families come back (found by tool_search, as before).
	if _, err := f.st.UpdateSession(id, func(i *store.SessionInfo) { i.ToolsOff = nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Append(id, store.EventUser, store.UserMessage{Text: "again"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
		t.Fatal(err)
	}
	chats := f.model.Chats()
	names, search = offeredTools(chats[len(chats)-1].Request)
	if !slices.Contains(names, "read_files") || !strings.Contains(search, "browser_") || !strings.Contains(search, "memory") {
		t.Fatalf("families not back: %v; %q", names, search)
	}
}

// Every family off: only what no family owns is left (tool_search for read_result), and the
// turn still runs.
func TestAllFamiliesOffDropsToolSearch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fakeFamilies()...)
	f.model.Default(scripted.Reply{Text: "ok"})
	id := f.session(t, f.ws, "hi")
	off := []store.ToolFamily{store.FamilyBrowser, store.FamilyWeb, store.MCPFamily("notes"), store.MCPFamily("files"), store.FamilyCoding, store.FamilyMemory}
	if _, err := f.st.UpdateSession(id, func(i *store.SessionInfo) { i.ToolsOff = off }); err != nil {
		t.Fatal(err)
	}
	if end, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("end %+v, %v", end, err)
	}
	names, search := offeredTools(f.model.Chats()[0].Request)
	if !slices.Equal(names, []string{"tool_search"}) || strings.Contains(search, "browser") || strings.Contains(search, "web") {
		t.Fatalf("offered with every family off: %v (%q)", names, search)
	}
}

func TestValidFamily(t *testing.T) {
	t.Parallel()
	for f, want := range map[store.ToolFamily]bool{
		store.FamilyCoding: true, store.FamilyWeb: true, store.MCPFamily("x"): true,
		"mcp:": false, "mcp": false, "shell": false, "": false,
	} {
		if ValidFamily(f) != want {
			t.Errorf("ValidFamily(%q) = %v", f, !want)
		}
	}
}
