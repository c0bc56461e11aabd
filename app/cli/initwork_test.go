package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Package init runs on every start of the binary, `tofu version` included: tables,
// vocabularies and compiled regexps belong behind first use. This test re-runs its own
// binary (which links every package the CLI links) with GODEBUG=inittrace=1 and bounds what
// the inits allocated, counted in bytes and allocations, which do not depend on the machine's
// load as the trace's clock does. The bounds are some twice today's figures (2.8 MB and
// 12,000 allocations in all; the largest package 350 KB, 1,700 allocations): one spreadsheet
// library's number-format tables (21,000 allocations) or one JSON Schema validator's
// meta-schemas (21,000) would break them.
const (
	maxInitBytes      = 5 << 19 // 2.5 MB: 1.9 MB since stopwords, glyph names and language profiles load on first use (2.9 before)
	maxInitAllocs     = 25_000
	maxPackageBytes   = 1 << 20
	maxPackageAllocs  = 5_000
	initTraceRerunEnv = "TOFU_INITTRACE_CHILD"
)

type initCost struct {
	pkg           string
	bytes, allocs int64
}

func TestInitWork(t *testing.T) {
	if os.Getenv(initTraceRerunEnv) != "" {
		return // the child: its inits have run, which is all it is for
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitWork$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", initTraceRerunEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("re-run with inittrace: %v\n%s", err, stderr.String())
	}
	costs, err := parseInitTrace(stderr.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(costs) < 100 {
		t.Fatalf("inittrace listed %d packages: GODEBUG=inittrace=1 no longer reports them?", len(costs))
	}
	var bytesSum, allocsSum int64
	for _, c := range costs {
		bytesSum += c.bytes
		allocsSum += c.allocs
		if c.bytes > maxPackageBytes || c.allocs > maxPackageAllocs {
			t.Errorf("package %s allocates %d bytes in %d allocations at init (bound %d bytes, %d allocations): load its tables on first use", c.pkg, c.bytes, c.allocs, maxPackageBytes, maxPackageAllocs)
		}
	}
	sort.Slice(costs, func(i, j int) bool { return costs[i].allocs > costs[j].allocs })
	if bytesSum > maxInitBytes || allocsSum > maxInitAllocs {
		var top strings.Builder
		for _, c := range costs[:min(8, len(costs))] {
			fmt.Fprintf(&top, "\n  %s: %d bytes, %d allocations", c.pkg, c.bytes, c.allocs)
		}
		t.Errorf("package inits allocate %d bytes in %d allocations (bound %d bytes, %d allocations); the largest:%s", bytesSum, allocsSum, maxInitBytes, maxInitAllocs, top.String())
	}
	t.Logf("package inits: %d packages, %d bytes, %d allocations; the largest %s (%d allocations)", len(costs), bytesSum, allocsSum, costs[0].pkg, costs[0].allocs)
}

// parseInitTrace reads lines such as
// "init github.com/x/y @1.2 ms, 0.5 ms clock, 1024 bytes, 12 allocs".
func parseInitTrace(out []byte) ([]initCost, error) {
	var costs []initCost
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.ParseInt(f[7], 10, 64)
		a, err2 := strconv.ParseInt(f[9], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("unreadable inittrace line %q", sc.Text())
		}
		costs = append(costs, initCost{pkg: f[1], bytes: b, allocs: a})
	}
	return costs, sc.Err()
}
