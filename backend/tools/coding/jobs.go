package coding

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// MaxJobs is how many background jobs may run at once.
const MaxJobs = 8

// Jobs is the table of background commands of a session.
type Jobs struct {
	opts Options
	// spawner starts every command of the toolbox (foreground ones too) from one thread, so
	// that they die with Tofu (see procgroup.Spawner).
	spawner *procgroup.Spawner
	mu      sync.Mutex
	next    int
	jobs    map[string]*job
	git     gitEnv       // every command of the table runs with git hardened
	temp    sandbox.Temp // the session's /tmp inside the sandbox, removed with the toolbox
}

type job struct {
	id, command, dir string
	proc             *process
	mu               sync.Mutex
	read             int64 // output offset job_output has shown up to
}

// NewJobs returns an empty job table.
func NewJobs(opts Options) *Jobs {
	return &Jobs{opts: opts.withDefaults(), spawner: &procgroup.Spawner{}, jobs: map[string]*job{}}
}

// start runs command in dir as a background job; launched records its process group.
func (js *Jobs) start(command, dir string, box *sandbox.Boundary, launched func(procgroup.Group) error) (*job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	running := 0
	for _, j := range js.jobs {
		if j.proc.running() {
			running++
		}
	}
	if running >= MaxJobs {
		return nil, fmt.Errorf("%d background jobs are running, the limit; stop one with job_kill first", running)
	}
	id := "j" + strconv.Itoa(js.next+1)
	proc, err := startProcess(js.spawner, launch{command: command, dir: dir, job: id, launched: launched, env: js.git.env(), box: box})
	if err != nil {
		return nil, fmt.Errorf("start job: %w", err)
	}
	js.next++
	j := &job{id: id, command: command, dir: dir, proc: proc}
	js.jobs[j.id] = j
	return j, nil
}

func (js *Jobs) get(id string) (*job, string) {
	js.mu.Lock()
	defer js.mu.Unlock()
	id = strings.TrimSpace(id)
	if _, err := strconv.Atoi(id); err == nil {
		id = "j" + id // "1" for "j1"
	}
	if j, ok := js.jobs[id]; ok {
		return j, ""
	}
	return nil, fmt.Sprintf("no job %q; %s", id, js.listLocked())
}

// list describes every job, for a model that lost track.
func (js *Jobs) list() string {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.listLocked()
}

func (js *Jobs) listLocked() string {
	if len(js.jobs) == 0 {
		return "there are no jobs"
	}
	ids := make([]string, 0, len(js.jobs))
	for id := range js.jobs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool {
		x, _ := strconv.Atoi(ids[a][1:])
		y, _ := strconv.Atoi(ids[b][1:])
		return x < y
	})
	var b strings.Builder
	b.WriteString("jobs:")
	for _, id := range ids {
		j := js.jobs[id]
		fmt.Fprintf(&b, "\n%s `%s` (%s)", id, j.command, j.proc.status())
	}
	return b.String()
}

// Close stops every job that is still running; commands started afterwards are refused.
func (js *Jobs) Close() {
	js.mu.Lock()
	jobs := make([]*job, 0, len(js.jobs))
	for _, j := range js.jobs {
		jobs = append(jobs, j)
	}
	js.mu.Unlock()
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() { j.proc.stop(js.opts.KillGrace) })
	}
	wg.Wait()
	js.spawner.Close()
	js.git.close()
	js.temp.Remove()
}

// unread returns the job's output since the last call (at most limit bytes) and advances.
func (j *job) unread(limit int) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out, next, skipped := j.proc.out.since(j.read, limit)
	j.read = next
	if skipped > 0 {
		out = fmt.Sprintf("[… %d earlier bytes not shown …]\n%s", skipped, out)
	}
	return out
}
