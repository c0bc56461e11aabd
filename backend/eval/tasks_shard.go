package eval

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Shard is part I of N of a suite (I from 0, as Kubernetes' JOB_COMPLETION_INDEX counts).
type Shard struct{ I, N int }

// ParseShard reads "I/N" ("" is the whole suite: 0/1).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{0, 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N (e.g. 0/4)", s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string {
	if s.N <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Of is the shard's tasks: with the suite's instance ids sorted, the k-th belongs to shard
// k mod N. The split depends on the ids only, so every machine computes the same one from
// the same suite. The tasks keep the suite's order.
func (s Shard) Of(tasks []Task) []Task {
	if s.N <= 1 {
		return tasks
	}
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.InstanceID
	}
	sort.Strings(ids)
	mine := map[string]bool{}
	for k, id := range ids {
		if k%s.N == s.I {
			mine[id] = true
		}
	}
	var out []Task
	for _, t := range tasks {
		if mine[t.InstanceID] {
			out = append(out, t)
		}
	}
	return out
}
