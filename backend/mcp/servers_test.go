package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
)

// TestFilesystemAndMemoryServers drives the official filesystem and memory servers through the
// tools a turn gets: the filesystem server writes and reads inside the directory it was given
// and refuses outside it; the memory server stores entities in its file and reads them back.
func TestFilesystemAndMemoryServers(t *testing.T) {
	t.Parallel()
	dir, mem := t.TempDir(), filepath.Join(t.TempDir(), "memory.jsonl")
	dir, _ = filepath.EvalSymlinks(dir)
	w := newWatched(t, Options{}, map[string]config.MCPServer{"fs": filesystem(t, dir), "memory": memory(t, mem)})
	w.until(t, "both servers", func(s map[string]State) bool {
		return connected("fs", 5)(s) && connected("memory", 5)(s)
	})
	reg := tools.NewRegistry()
	if _, err := w.Family(nil)(reg, session.Spec{}); err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(dir, "notes.txt")
	if r := call(t, reg, "mcp__fs__write_file", map[string]any{"path": file, "content": "tofu was here\n"}); r.IsError {
		t.Fatal(r.Text)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "tofu was here\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	r := call(t, reg, "mcp__fs__read_text_file", map[string]any{"path": file})
	mustContain(t, "read_text_file", r.Text, "tofu was here")
	r = call(t, reg, "mcp__fs__list_directory", `{"path": "`+dir+`"}`)
	mustContain(t, "list_directory", r.Text, "notes.txt")
	if r = call(t, reg, "mcp__fs__read_text_file", map[string]any{"path": "/etc/hostname"}); !r.IsError {
		t.Fatalf("reading outside the allowed directory: %q", r.Text)
	}

	r = call(t, reg, "mcp__memory__create_entities", map[string]any{"entities": map[string]any{
		"name": "Tofu", "entityType": "project", "observations": "a research assistant"}}) // one item for a list
	if r.IsError {
		t.Fatal(r.Text)
	}
	r = call(t, reg, "mcp__memory__read_graph", map[string]any{})
	mustContain(t, "read_graph", r.Text, "Tofu", "a research assistant")
	if b, err := os.ReadFile(mem); err != nil || !strings.Contains(string(b), "Tofu") {
		t.Fatalf("the memory file: %q %v", b, err)
	}

	// Switching a tool off and trusting the server change no process: no restart.
	fsBefore, _ := w.server("fs")
	connBefore, _ := fsBefore.connected()
	fsCfg := filesystem(t, dir)
	fsCfg.DisabledTools, fsCfg.Trusted = []string{"write_file"}, true
	w.Apply(map[string]config.MCPServer{"fs": fsCfg, "memory": memory(t, mem)})
	fsAfter, _ := w.server("fs")
	if connAfter, err := fsAfter.connected(); err != nil || connAfter != connBefore {
		t.Fatalf("a tool switched off restarted the server: %v", err)
	}
	reg = tools.NewRegistry()
	if _, err := w.Family(nil)(reg, session.Spec{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Get("mcp__fs__write_file"); ok {
		t.Fatal("the tool switched off is still offered")
	}
	if tl, ok := reg.Get("mcp__fs__read_text_file"); !ok || !tl.ReadOnly() {
		t.Fatal("a trusted server's read-only tool does not count as read-only")
	}
}
