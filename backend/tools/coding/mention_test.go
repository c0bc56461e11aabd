package coding

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMentionFilesFollowTheWalkRules(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	outside := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "build/\n*.log\n")
	write("main.go", "package main\n")
	write("src/parser.go", "package src\n")
	write("build/out.bin", "x")
	write("debug.log", "x")
	write(".env", "SECRET=1")
	write("node/.cache/x.js", "x")
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	got, more, err := MentionFiles(context.Background(), ws, 10)
	if err != nil || more {
		t.Fatal(err, more)
	}
	if want := []string{"main.go", "src/parser.go"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("listed %q, want %q", got, want)
	}
	if got, more, _ := MentionFiles(context.Background(), ws, 1); len(got) != 1 || !more {
		t.Fatalf("a limit of 1: %q, more %v", got, more)
	}
	if data, err := MentionedFile(ws, "src/parser.go"); err != nil || string(data) != "package src\n" {
		t.Fatalf("read: %q, %v", data, err)
	}
	for rel, why := range map[string]string{
		"link.txt":         "outside the workspace",
		"../x":             "no such file",
		"/etc/passwd":      "name a file by its path",
		".env":             "hidden",
		"debug.log":        "ignored by .gitignore",
		"build/out.bin":    "ignored by .gitignore",
		"src":              "not a file",
		"src/missing.go":   "no such file",
		"node/.cache/x.js": "hidden",
	} {
		if _, err := MentionedFile(ws, rel); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("@%s: %v, want %q", rel, err, why)
		}
	}
}
