package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// ToolNames are the memory tools, deferred behind tool_search: the first request pays only
// their names.
var ToolNames = []string{"memory_search", "memory_create", "memory_update", "memory_delete", "memory_merge"}

type searchParams struct {
	Query string `json:"query" description:"words, identifiers or a question, in any language"`
	Limit int    `json:"limit,omitempty" description:"most records to return (default 5)"`
}

type createParams struct {
	Name        string   `json:"name" description:"short title"`
	Description string   `json:"description" description:"one line: when this applies"`
	Body        string   `json:"body" description:"the lesson, in Markdown"`
	Tags        []string `json:"tags,omitempty"`
	Scope       string   `json:"scope,omitempty" description:"project (default) or global (every workspace)"`
}

type updateParams struct {
	ID          string   `json:"id"`
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	Body        string   `json:"body,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Enabled     *bool    `json:"enabled,omitempty"`
}

type deleteParams struct {
	ID string `json:"id"`
}

type mergeParams struct {
	IDs         []string `json:"ids" description:"the records to replace, two or more"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Body        string   `json:"body" description:"the merged text"`
}

// Tools are the memory tools for a turn in workspace. Writes are checked by the approval
// service like any file write (the record's path is the access).
func (s *Store) Tools(workspace string) []tools.Tool {
	writeAt := func(scope, name string) []tools.Access {
		if scope == "" {
			scope = ScopeProject
			if workspace == "" {
				scope = ScopeGlobal
			}
		}
		dir := s.dir(workspace, scope)
		if dir == "" {
			return nil // Run refuses the scope
		}
		return []tools.Access{{Kind: tools.AccessWrite, Path: filepath.Join(dir, slug(name)+".md")}}
	}
	pathOf := func(id string) []tools.Access {
		if r, err := s.Get(workspace, id); err == nil {
			return []tools.Access{{Kind: tools.AccessWrite, Path: r.Path}}
		}
		return nil // Run answers the unknown id
	}
	return []tools.Tool{
		tools.Define(tools.Def[searchParams]{
			Name:        "memory_search",
			Purpose:     "search saved lessons",
			Description: "Search memory records (lessons saved in earlier sessions: bug patterns, conventions, preferences, workflows, tool quirks) of this project and global ones.",
			ReadOnly:    true,
			Example:     `{"query":"how are the tests run"}`,
			Run: func(_ context.Context, _ tools.Call, p searchParams) (tools.Result, error) {
				limit := p.Limit
				if limit <= 0 {
					limit = 5
				}
				found, err := s.Search(workspace, p.Query, limit, false)
				if err != nil {
					return tools.Result{}, err
				}
				res := tools.Listing(found, "No memory record matches.", func(f Found) string { return recallEntry(f.Record) })
				if len(found) > 0 {
					res.Meta = ids(found)
				}
				return res, nil
			},
		}),
		tools.Define(tools.Def[createParams]{
			Name:        "memory_create",
			Purpose:     "save a lesson",
			Description: "Save a lesson worth keeping for later sessions (a bug pattern, convention, user preference, workflow or tool quirk). Search first: update a record rather than duplicate it.",
			Example:     `{"name":"Tests need offline.sh","description":"running Go tests here","body":"Wrap tests in build/offline.sh.","tags":["tests"]}`,
			Access:      func(_ tools.Call, p createParams) []tools.Access { return writeAt(p.Scope, p.Name) },
			Run: func(_ context.Context, _ tools.Call, p createParams) (tools.Result, error) {
				r, err := s.Create(workspace, Record{Name: p.Name, Description: p.Description, Body: p.Body, Tags: p.Tags, Scope: p.Scope})
				if err != nil {
					return tools.Errorf(err.Error()), nil
				}
				return tools.Result{Text: "Saved " + r.ID, Files: []string{r.Path}}, nil
			},
		}),
		tools.Define(tools.Def[updateParams]{
			Name:        "memory_update",
			Purpose:     "change a lesson",
			Description: "Change a memory record: the fields given replace the old ones; enabled false stops it from being recalled.",
			Example:     `{"id":"project:tests-need-offline-sh","body":"…"}`,
			Access:      func(_ tools.Call, p updateParams) []tools.Access { return pathOf(p.ID) },
			Run: func(_ context.Context, _ tools.Call, p updateParams) (tools.Result, error) {
				r, err := s.Update(workspace, p.ID, func(r *Record) {
					if p.Name != "" {
						r.Name = p.Name
					}
					if p.Description != "" {
						r.Description = p.Description
					}
					if p.Body != "" {
						r.Body = p.Body
					}
					if p.Tags != nil {
						r.Tags = p.Tags
					}
					if p.Enabled != nil {
						r.Enabled = *p.Enabled
					}
				})
				if err != nil {
					return tools.Errorf(err.Error()), nil
				}
				return tools.Result{Text: "Updated " + r.ID, Files: []string{r.Path}}, nil
			},
		}),
		tools.Define(tools.Def[deleteParams]{
			Name:        "memory_delete",
			Purpose:     "delete a lesson",
			Description: "Delete a memory record that is wrong or no longer true.",
			Example:     `{"id":"project:old-build-steps"}`,
			Access:      func(_ tools.Call, p deleteParams) []tools.Access { return pathOf(p.ID) },
			Run: func(_ context.Context, _ tools.Call, p deleteParams) (tools.Result, error) {
				if err := s.Delete(workspace, p.ID); err != nil {
					return tools.Errorf(err.Error()), nil
				}
				return tools.Result{Text: "Deleted " + p.ID}, nil
			},
		}),
		tools.Define(tools.Def[mergeParams]{
			Name:        "memory_merge",
			Purpose:     "merge lessons",
			Description: "Replace several memory records on one subject with one (tags are kept).",
			Example:     `{"ids":["project:a","project:b"],"name":"Test setup","description":"running tests","body":"…"}`,
			Access: func(_ tools.Call, p mergeParams) []tools.Access {
				var acc []tools.Access
				for _, id := range p.IDs {
					acc = append(acc, pathOf(id)...)
				}
				scope := ""
				if len(p.IDs) > 0 {
					scope, _, _ = strings.Cut(p.IDs[0], ":")
				}
				return append(acc, writeAt(scope, p.Name)...)
			},
			Run: func(_ context.Context, _ tools.Call, p mergeParams) (tools.Result, error) {
				r, err := s.Merge(workspace, p.IDs, Record{Name: p.Name, Description: p.Description, Body: p.Body})
				if err != nil {
					return tools.Errorf(err.Error()), nil
				}
				return tools.Result{Text: fmt.Sprintf("Merged %s into %s", strings.Join(p.IDs, ", "), r.ID), Files: []string{r.Path}}, nil
			},
		}),
	}
}

func ids(found []Found) json.RawMessage {
	var out []string
	for _, f := range found {
		out = append(out, f.ID)
	}
	b, _ := json.Marshal(map[string]any{"ids": out})
	return b
}
