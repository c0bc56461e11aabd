package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/search"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/wording"
)

// maxText bounds what one call returns; longer text says how to read the rest.
const maxText = 60000

func (h *handlers) tools() []server.ServerTool {
	ro := mcp.WithReadOnlyHintAnnotation(true)
	var extra []server.ServerTool
	if h.o.Memory != nil {
		extra = append(extra, server.ServerTool{Tool: mcp.NewTool("memory_search", mcp.WithDescription("Search Tofu's memory records (what the user asked Tofu to remember: facts, preferences, skills), global and a workspace's."), ro,
			mcp.WithString("query", mcp.Required()),
			mcp.WithString("workspace", mcp.Description("absolute path of a workspace, for its records too")),
			mcp.WithNumber("limit", mcp.Description("most records to return (default 5)"))), Handler: h.memorySearch})
	}
	return append(extra, []server.ServerTool{
		{Tool: mcp.NewTool("library_list", mcp.WithDescription("List the papers in Tofu's library: id, title, authors, year, pages."), ro), Handler: h.libraryList},
		{Tool: mcp.NewTool("library_search", mcp.WithDescription("Search the papers of Tofu's library for passages (BM25); each hit gives the paper id, its pages and section."), ro,
			mcp.WithString("query", mcp.Required(), mcp.Description("what to look for")),
			mcp.WithString("paper", mcp.Description("only this paper (an id from library_list)")),
			mcp.WithNumber("limit", mcp.Description("most passages to return (default 8)"))), Handler: h.librarySearch},
		{Tool: mcp.NewTool("paper_read", mcp.WithDescription("The text of a paper (or of some pages), in reading order, with page markers."), ro,
			mcp.WithString("paper", mcp.Required(), mcp.Description("paper id from library_list")),
			mcp.WithString("pages", mcp.Description(`pages such as "1-3,5" (default: all)`))), Handler: h.paperRead},
		{Tool: mcp.NewTool("paper_ask", mcp.WithDescription("Ask a question about a paper; Tofu answers from the paper's passages on the user's model, citing pages. Logged in the paper's Q&A."),
			mcp.WithString("paper", mcp.Required(), mcp.Description("paper id from library_list")),
			mcp.WithString("question", mcp.Required())), Handler: h.paperAsk},
		{Tool: mcp.NewTool("sessions_list", mcp.WithDescription("List Tofu's conversations, newest first: id, title, last activity, workspace."), ro,
			mcp.WithNumber("limit", mcp.Description("most to return (default 30)"))), Handler: h.sessionsList},
		{Tool: mcp.NewTool("sessions_search", mcp.WithDescription("Search the text of Tofu's conversations (messages and answers); returns session ids with a snippet."), ro,
			mcp.WithString("query", mcp.Required()),
			mcp.WithNumber("limit", mcp.Description("most sessions to return (default 10)"))), Handler: h.sessionsSearch},
		{Tool: mcp.NewTool("session_read", mcp.WithDescription("Read a conversation: the messages, answers and tool calls, in order."), ro,
			mcp.WithString("session", mcp.Required(), mcp.Description("session id"))), Handler: h.sessionRead},
		{Tool: mcp.NewTool("run_task", mcp.WithDescription("Run a Tofu agent turn on a task in a workspace directory, under Tofu's approval policy (calls that would need approval are refused). Sends progress as it works; returns the final answer and the session id."),
			mcp.WithString("task", mcp.Required(), mcp.Description("what to do")),
			mcp.WithString("workspace", mcp.Required(), mcp.Description("absolute path of the directory to work in")),
			mcp.WithString("session", mcp.Description("continue this session (from an earlier run_task) instead of starting one"))), Handler: h.runTask},
	}...)
}

func (h *handlers) memorySearch(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query, err := req.RequireString("query")
	if err != nil {
		return fail(err.Error()), nil
	}
	found, err := h.o.Memory.Search(req.GetString("workspace", ""), query, max(req.GetInt("limit", 5), 1), false)
	if err != nil {
		return fail(err.Error()), nil
	}
	if len(found) == 0 {
		return text(fmt.Sprintf("No memory record matches %q.", query)), nil
	}
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "%s (%s): %s\n%s\n\n", f.Name, f.Scope, f.Description, wording.Clip(f.Body, 2000))
	}
	return text(b.String()), nil
}

func (h *handlers) libraryList(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	papers, err := h.o.Library.List()
	if err != nil {
		return fail(err.Error()), nil
	}
	if len(papers) == 0 {
		return text("The library is empty."), nil
	}
	var b strings.Builder
	for _, p := range papers {
		fmt.Fprintf(&b, "%s  %q", p.ID, p.Title)
		if len(p.Authors) > 0 {
			fmt.Fprintf(&b, " — %s", strings.Join(p.Authors, ", "))
		}
		if p.Year > 0 {
			fmt.Fprintf(&b, " (%d)", p.Year)
		}
		fmt.Fprintf(&b, ", %d pages\n", p.Pages)
	}
	return text(b.String()), nil
}

func (h *handlers) librarySearch(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query, err := req.RequireString("query")
	if err != nil {
		return fail(err.Error()), nil
	}
	limit := max(req.GetInt("limit", 8), 1)
	papers, err := h.o.Library.List()
	if err != nil {
		return fail(err.Error()), nil
	}
	type hit struct {
		paper, title string
		h            paper.Hit
	}
	var hits []hit
	only := req.GetString("paper", "")
	for _, p := range papers {
		if only != "" && p.ID != only {
			continue
		}
		v, err := h.o.Library.Open(p.ID)
		if err != nil {
			continue
		}
		for _, x := range paper.NewIndex(v.Chunks).Search(query, limit) {
			hits = append(hits, hit{p.ID, p.Title, x})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].h.Score > hits[j].h.Score })
	if len(hits) == 0 {
		return text(fmt.Sprintf("No passage matches %q.", query)), nil
	}
	var b strings.Builder
	for _, x := range hits[:min(limit, len(hits))] {
		fmt.Fprintf(&b, "paper %s %q, %s, section %q:\n%s\n\n", x.paper, x.title, pagesLabel(x.h.Chunk.Pages), x.h.Chunk.Section, wording.Clip(x.h.Chunk.Text, 1200))
	}
	return text(b.String()), nil
}

func (h *handlers) paperRead(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := req.RequireString("paper")
	if err != nil {
		return fail(err.Error()), nil
	}
	v, err := h.o.Library.Open(id)
	if err != nil {
		return fail(fmt.Sprintf("paper %s: %v (library_list gives the ids)", id, err)), nil
	}
	rng, err := paper.ParsePages(req.GetString("pages", ""))
	if err != nil {
		return fail(err.Error()), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d pages)\n", v.Info.Title, v.Info.Pages)
	page := 0
	for _, c := range v.Chunks {
		if len(c.Pages) == 0 || !anyPage(rng, c.Pages) {
			continue
		}
		if c.Pages[0] != page {
			page = c.Pages[0]
			fmt.Fprintf(&b, "\n[page %d]\n", page)
		}
		b.WriteString(c.Text + "\n")
		if b.Len() > maxText {
			fmt.Fprintf(&b, "\n[cut at %d characters: read from page %d on with pages]", maxText, page+1)
			break
		}
	}
	return text(b.String()), nil
}

func anyPage(rng paper.PageRange, pages []int) bool {
	for _, p := range pages {
		if rng.Contains(p) {
			return true
		}
	}
	return false
}

func (h *handlers) paperAsk(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := req.RequireString("paper")
	if err != nil {
		return fail(err.Error()), nil
	}
	q, err := req.RequireString("question")
	if err != nil {
		return fail(err.Error()), nil
	}
	sid, err := h.o.Library.Session(id, store.PurposeQA)
	if err != nil {
		return fail(fmt.Sprintf("paper %s: %v", id, err)), nil
	}
	return h.turn(ctx, req, session.Message{Session: sid, Text: q}, "")
}

func (h *handlers) sessionsList(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	all, err := h.o.Store.Sessions()
	if err != nil {
		return fail(err.Error()), nil
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Updated.After(all[j].Updated) })
	limit := max(req.GetInt("limit", 30), 1)
	var b strings.Builder
	for _, s := range all[:min(limit, len(all))] {
		fmt.Fprintf(&b, "%s  %q  %s", s.ID, s.Title, s.Updated.Format("2006-01-02 15:04"))
		if s.Workspace != "" {
			fmt.Fprintf(&b, "  workspace %s", s.Workspace)
		}
		if s.Paper != "" {
			fmt.Fprintf(&b, "  paper %s (%s)", s.Paper, s.Purpose)
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return text("There are no conversations."), nil
	}
	return text(b.String()), nil
}

func (h *handlers) sessionsSearch(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query, err := req.RequireString("query")
	if err != nil {
		return fail(err.Error()), nil
	}
	all, err := h.o.Store.Sessions()
	if err != nil {
		return fail(err.Error()), nil
	}
	ix := search.NewIndex(search.NewAnalyzer(), search.DefaultParams, search.Field{Name: "title", Weight: 1}, search.Field{Name: "text", Weight: 1})
	texts := map[string]string{}
	titles := map[string]string{}
	for _, s := range all {
		evs, err := h.o.Store.Events(s.ID)
		if err != nil {
			continue
		}
		t := conversation(evs, false)
		texts[s.ID], titles[s.ID] = t, s.Title
		ix.Add(search.Doc{ID: s.ID, Fields: []string{s.Title, t}})
	}
	hits := ix.Search(query, max(req.GetInt("limit", 10), 1))
	if len(hits) == 0 {
		return text(fmt.Sprintf("No conversation matches %q.", query)), nil
	}
	var b strings.Builder
	for _, x := range hits {
		fmt.Fprintf(&b, "%s  %q: %s\n", x.ID, titles[x.ID], snippet(texts[x.ID], query))
	}
	return text(b.String()), nil
}

func (h *handlers) sessionRead(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := req.RequireString("session")
	if err != nil {
		return fail(err.Error()), nil
	}
	info, err := h.o.Store.Session(id)
	if err != nil {
		return fail(fmt.Sprintf("session %s: %v (sessions_list gives the ids)", id, err)), nil
	}
	evs, err := h.o.Store.Events(id)
	if err != nil {
		return fail(err.Error()), nil
	}
	t := conversation(evs, true)
	if len(t) > maxText {
		t = "[the start is cut: the last " + fmt.Sprint(maxText) + " characters follow]\n" + wording.ClipTail(t, maxText)
	}
	return text(fmt.Sprintf("%q\n\n%s", info.Title, t)), nil
}

func (h *handlers) runTask(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	task, err := req.RequireString("task")
	if err != nil {
		return fail(err.Error()), nil
	}
	ws, err := req.RequireString("workspace")
	if err != nil {
		return fail(err.Error()), nil
	}
	if !filepath.IsAbs(ws) {
		return fail("workspace must be an absolute path"), nil
	}
	if _, err := session.ResolveWorkspace(ws); err != nil {
		return fail(fmt.Sprintf("workspace %s: %v", ws, err)), nil
	}
	return h.turn(ctx, req, session.Message{Session: req.GetString("session", ""), Text: task,
		Setup: func(i *store.SessionInfo) {
			if i.Workspace == "" { // a new session: an earlier run_task's keeps its own
				i.Workspace = ws
			}
		}}, string(h.o.Approve))
}

// turn sends m (session.Runner.Send: a new session unless m names one), runs its turn (its
// events sent as progress) and answers with the last reply.
func (h *handlers) turn(ctx context.Context, req mcp.CallToolRequest, m session.Message, approve string) (*mcp.CallToolResult, error) {
	var stop func()
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	m.Written = func(sid string, _ []store.Event, _ *session.Request) {
		step := 0.0
		stop = h.o.Store.Subscribe(func(ev store.Event) {
			if ev.Session != sid {
				return
			}
			if msg := describe(ev); msg != "" {
				step++
				progress(ctx, req, step, msg)
			}
		})
	}
	sent, err := h.o.Runner.Send(ctx, m, session.Request{Approve: approve})
	if err != nil {
		return fail(err.Error()), nil
	}
	end := sent.Turn.Wait()
	stop()
	stop = nil
	sid := sent.Session
	evs, _ := h.o.Store.Events(sid)
	answer := ""
	for _, ev := range evs {
		var a store.AssistantMessage
		if ev.Type == store.EventAssistant && ev.Decode(&a) == nil && a.Text != "" {
			answer = a.Text
		}
	}
	out := fmt.Sprintf("%s\n\n[session %s, ended: %s after %d steps]", answer, sid, end.Reason, end.Steps)
	if end.Err != nil {
		return fail(out + ": " + end.Err.Error()), nil
	}
	return text(out), nil
}
