package coding

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
)

// workspace makes a temp dir holding files (path → content; a path ending in / is a directory).
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testJobs is a job table closed when the test ends: its jobs stopped, its clean git config and
// sandbox /tmp removed (nothing left in the machine's /tmp).
func testJobs(t *testing.T, opts Options) *Jobs {
	t.Helper()
	js := NewJobs(opts)
	t.Cleanup(js.Close)
	return js
}

// call runs tool with args (a JSON string) in ws and fails the test on an infrastructure error.
func call(t *testing.T, tool tools.Tool, ws, args string) tools.Result {
	t.Helper()
	res, err := tool.Run(context.Background(), tools.Call{ID: "c1", Name: tool.Spec().Name, Arguments: json.RawMessage(args), Workspace: ws})
	if err != nil {
		t.Fatalf("%s %s: %v", tool.Spec().Name, args, err)
	}
	return res
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			shown := got
			if len(shown) > 3000 {
				shown = shown[:1500] + "\n…\n" + shown[len(shown)-1500:]
			}
			t.Errorf("output lacks %q:\n%s", w, shown)
		}
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }

// sleepTick is the pause between two looks at a condition being polled.
func sleepTick() { time.Sleep(10 * time.Millisecond) }
