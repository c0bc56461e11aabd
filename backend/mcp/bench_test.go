package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/toolset"
)

// BenchmarkCallOverhead measures a trivial call as a turn makes it (Registry.Run): the echo
// tool of server-everything over stdio against the built-in read_files on a one-line file,
// reporting the median (p50) of each.
//
//	build/offline.sh go test ./backend/mcp -run '^$' -bench CallOverhead -benchtime 500x
func BenchmarkCallOverhead(b *testing.B) {
	m := NewManager(Options{})
	defer m.Close()
	m.Apply(map[string]config.MCPServer{"everything": everything(b)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	m.Wait(ctx)
	cancel()
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ts := toolset.New(toolset.Options{})
	defer ts.Close()
	if _, err := m.Family(nil)(ts.Registry, session.Spec{}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		call tools.Call
	}{
		{"mcp_echo", tools.Call{Name: ToolName("everything", "echo"), Arguments: json.RawMessage(`{"message":"hi"}`), Workspace: ws}},
		{"builtin_read_files", tools.Call{Name: "read_files", Arguments: json.RawMessage(`{"reads":[{"path":"a.txt"}]}`), Workspace: ws}},
	} {
		b.Run(c.name, func(b *testing.B) {
			durs := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, err := ts.Registry.Run(context.Background(), c.call)
				durs = append(durs, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
			sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
			b.ReportMetric(float64(durs[len(durs)/2].Microseconds()), "p50-µs")
		})
	}
}
