package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The attack suite's cases each set the process's environment (HOME and the XDG folders), so
// one process runs them one after another; most of a case's time is waiting (a Chromium
// starting, a sandbox's namespaces, a page's delayed redirect). The suite therefore runs in
// shards: the test starts copies of its own test binary, each running every Nth case of the
// list with its own scripted model and store, and adds up their records. TOFU_ATTACK_SHARDS
// sets N (1: every case in this process, as a -run pattern naming cases also does).

// attackShard says which shard this process is (-1: the one that starts them) and how many
// there are.
func attackShard(t *testing.T) (shard, shards int) {
	t.Helper()
	if s := os.Getenv("TOFU_ATTACK_SHARD"); s != "" {
		a, b, _ := strings.Cut(s, "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || i < 0 || i >= n {
			t.Fatalf("TOFU_ATTACK_SHARD=%q: want i/n", s)
		}
		return i, n
	}
	shards = min(2*runtime.GOMAXPROCS(0), 6)
	if s := os.Getenv("TOFU_ATTACK_SHARDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TOFU_ATTACK_SHARDS=%q: want a count", s)
		}
		shards = n
	}
	if run := flag.Lookup("test.run"); run != nil && strings.Contains(run.Value.String(), "/") {
		shards = 1 // cases named: run them here, where their output is
	}
	return -1, shards
}

// shardOf is the shard that runs case j (under every mode: a case's runs share one). Cases
// that run the go command go to shard 0: the first builds the standard library into the
// shared cache, the others find it there (two processes building at once would each do it).
func shardOf(j int, c attack, shards int) int {
	for _, call := range c.calls {
		if call.Name == "run_command" && goCommand.Match(call.Arguments) {
			return 0
		}
	}
	return j % shards
}

var goCommand = regexp.MustCompile(`(^|[;&|( ]|"command":")go (test|build|run|generate|vet|install)\b`)

// attackCache is the sandbox's cache folder (XDG_CACHE_HOME) the suite's cases share: the
// shards' one when this is a shard. Outside /tmp, which the sandbox replaces by its own.
func attackCache(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("TOFU_ATTACK_CACHE"); dir != "" {
		return dir
	}
	dir, err := os.MkdirTemp("/var/tmp", "tofu-attack-cache-*")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	seedGoCache(t, dir)
	return dir
}

// runShards runs the suite in shards processes side by side and returns their records,
// failing the test for a shard that failed (with its output) or a run no shard reported.
func runShards(t *testing.T, shards, runs int) []attackRecord {
	t.Helper()
	cache, out := attackCache(t), t.TempDir()
	args := []string{"-test.run=^TestAttackSuite$", "-test.count=1"}
	for _, name := range []string{"test.timeout", "test.v"} {
		if f := flag.Lookup(name); f != nil {
			args = append(args, "-"+name+"="+f.Value.String())
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var records []attackRecord
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results := filepath.Join(out, fmt.Sprintf("shard-%d.json", i))
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), fmt.Sprintf("TOFU_ATTACK_SHARD=%d/%d", i, shards),
				"TOFU_ATTACK_CACHE="+cache, "TOFU_ATTACK_RESULTS="+results)
			var log bytes.Buffer
			cmd.Stdout, cmd.Stderr = &log, &log
			err := cmd.Run()
			if err != nil || testing.Verbose() {
				t.Logf("shard %d/%d:\n%s", i, shards, log.String())
			}
			if err != nil {
				t.Errorf("shard %d/%d: %v (its output is above)", i, shards, err)
				return
			}
			b, err := os.ReadFile(results)
			var got []attackRecord
			if err == nil {
				err = json.Unmarshal(b, &got)
			}
			if err != nil {
				t.Errorf("shard %d/%d: its records: %v", i, shards, err)
				return
			}
			mu.Lock()
			records = append(records, got...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	seen := make([]bool, runs)
	for _, r := range records {
		if r.Run < 0 || r.Run >= runs || seen[r.Run] {
			t.Errorf("shard record %+v: out of range or twice", r)
			continue
		}
		seen[r.Run] = true
	}
	if !t.Failed() {
		for i, ok := range seen {
			if !ok {
				t.Errorf("run %d of %d: no shard reported it", i, runs)
			}
		}
	}
	return records
}

// writeShardRecords hands this shard's records to the process that started it.
func writeShardRecords(t *testing.T, records []attackRecord) {
	t.Helper()
	path := os.Getenv("TOFU_ATTACK_RESULTS")
	if path == "" {
		t.Fatal("a shard needs TOFU_ATTACK_RESULTS")
	}
	b, err := json.Marshal(records)
	must(t, err)
	must(t, os.WriteFile(path, b, 0o644))
}
