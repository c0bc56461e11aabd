package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"
)

// ReadReport reads a JSON report of tofu eval tasks.
func ReadReport(path string) (TasksReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return TasksReport{}, err
	}
	var r TasksReport
	if err := json.Unmarshal(b, &r); err != nil {
		return TasksReport{}, fmt.Errorf("%s: not a JSON report of tofu eval tasks: %w", path, err)
	}
	if r.Run.SuiteSHA256 == "" {
		return TasksReport{}, fmt.Errorf("%s: the report says nothing of its suite (no \"run\"): write it with tofu eval tasks --out", path)
	}
	return r, nil
}

// MergeReports combines the reports of a suite's shards into one: they must be runs of the
// same suite under the same configuration, and no task may be in two of them. The tasks are
// ordered by instance id; wall_ms is the longest shard's (shards run side by side).
func MergeReports(names []string, reps []TasksReport) (TasksReport, error) {
	if len(reps) == 0 {
		return TasksReport{}, fmt.Errorf("nothing to merge")
	}
	first := reps[0].Run
	owner := map[string]string{} // instance id → the report holding it
	var tasks []TaskResult
	var wall int64
	var shards []string
	for i, r := range reps {
		if r.Run.SuiteSHA256 != first.SuiteSHA256 {
			return TasksReport{}, fmt.Errorf("%s is a run of another suite than %s (%s sha256 %.12s…, not %s %.12s…)",
				names[i], names[0], r.Run.Suite, r.Run.SuiteSHA256, first.Suite, first.SuiteSHA256)
		}
		if !reflect.DeepEqual(r.Run.Config, first.Config) {
			return TasksReport{}, fmt.Errorf("%s ran under another configuration than %s: %s", names[i], names[0], configDiff(first.Config, r.Run.Config))
		}
		if a, b := shardCount(first.Shard), shardCount(r.Run.Shard); a != b {
			return TasksReport{}, fmt.Errorf("%s is shard %q and %s shard %q: the suite was split two ways", names[0], first.Shard, names[i], r.Run.Shard)
		}
		for _, t := range r.Tasks {
			if prev, ok := owner[t.InstanceID]; ok {
				return TasksReport{}, fmt.Errorf("task %s is in both %s and %s: the reports overlap (the same shard twice?)", t.InstanceID, prev, names[i])
			}
			owner[t.InstanceID] = names[i]
			tasks = append(tasks, t)
		}
		wall = max(wall, r.Summary.WallMS)
		if r.Run.Shard != "" {
			shards = append(shards, r.Run.Shard)
		}
		shards = append(shards, r.Run.Shards...)
	}
	sort.Slice(tasks, func(a, b int) bool { return tasks[a].InstanceID < tasks[b].InstanceID })
	rep := newTasksReport(tasks, time.Duration(wall)*time.Millisecond)
	rep.Run = first
	rep.Run.Shard, rep.Run.Shards = "", shards
	sort.Strings(rep.Run.Shards)
	return rep, nil
}

// Missing says how many tasks of the whole suite a (merged) report lacks, and a sentence
// saying so ("" when none).
func (r TasksReport) Missing() string {
	n := r.Run.SuiteTasks - len(r.Tasks)
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("%d of the suite's %d tasks are in no report (shards merged: %s)", n, r.Run.SuiteTasks, strings.Join(r.Run.Shards, ", "))
}

// shardCount is N of a shard "I/N" (1 for a whole suite).
func shardCount(s string) int {
	sh, err := ParseShard(s)
	if err != nil {
		return 0
	}
	return sh.N
}
