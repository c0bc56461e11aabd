package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const root = "../.."

// The committed front-end file is exactly what the Go side generates: a protocol value or
// payload changed in Go without regenerating fails here (run "make frontend").
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, OutputPath))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := line(gl, i), line(wl, i)
			if g != w {
				t.Fatalf("%s is out of date: run `go run ./backend/protocol/cmd/gen-ts` (or make frontend).\nline %d is\n  %s\nand the Go side says\n  %s", OutputPath, i+1, g, w)
			}
		}
	}
}

func line(ls []string, i int) string {
	if i < len(ls) {
		return ls[i]
	}
	return "(end of file)"
}

// The generator sees a Go change: a new constant of an enum and a renamed field both change
// the output (so the test above cannot pass on a stale file by construction).
func TestGenerateFollowsTheGoSide(t *testing.T) {
	dir := t.TempDir()
	for _, e := range Enums {
		src := filepath.Join(root, e.Dir)
		dst := filepath.Join(dir, e.Dir)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(src, "*.go"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644)
		}
	}
	before, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	extra := "package store\n\nconst EndOutOfCoffee EndReason = \"out_of_coffee\" // the user left\n"
	if err := os.WriteFile(filepath.Join(dir, "backend/store/zz_extra.go"), []byte(extra), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(before, after) || !bytes.Contains(after, []byte("OutOfCoffee: 'out_of_coffee',")) {
		t.Fatalf("a new EndReason constant did not reach the output")
	}
}

func TestKeys(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"EventUser", "EventUsage"}, "User Usage"},                                    // not "Us": cut at a word
		{[]string{"AllowOnce", "AlwaysGlobal", "DenyOnce"}, "AllowOnce AlwaysGlobal DenyOnce"}, // nothing shared
		{[]string{"EndDone", "EndError"}, "Done Error"},
		{[]string{"StreamStarted"}, "Started"},
	} {
		var cs []constant
		for _, n := range c.names {
			cs = append(cs, constant{Name: n})
		}
		if got := strings.Join(keys(cs), " "); got != c.want {
			t.Errorf("keys(%v) = %q, want %q", c.names, got, c.want)
		}
	}
}

// Every event type has a payload, and nothing else is in Payloads.
func TestEveryEventTypeHasAPayload(t *testing.T) {
	_, consts, err := readEnum(root, Enum{"backend/store", "EventType"})
	if err != nil {
		t.Fatal(err)
	}
	if len(consts) != len(Payloads) {
		t.Fatalf("%d event types, %d payloads", len(consts), len(Payloads))
	}
}
