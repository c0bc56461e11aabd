package coding

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
)

// MaxJobWait bounds job_output's wait.
const MaxJobWait = 10 * time.Minute

// JobParams are job_output's arguments.
type JobParams struct {
	ID   string `json:"id,omitempty" alias:"job_id,job"`
	Wait int    `json:"wait,omitempty" description:"seconds" alias:"timeout"`
}

// KillParams are job_kill's arguments.
type KillParams struct {
	ID string `json:"id" alias:"job_id,job"`
}

// JobMeta is job_output's and job_kill's Result.Meta.
type JobMeta struct {
	ID      string `json:"id"`
	Running bool   `json:"running"`
	Status  string `json:"status"`
}

// NewJobOutput returns the job_output tool.
func NewJobOutput(jobs *Jobs) tools.Tool {
	return tools.Define(tools.Def[JobParams]{
		Name:        "job_output",
		Description: doc("job_output"),
		ReadOnly:    true,
		Example:     `{"id":"j1","wait":30}`,
		Run: func(ctx context.Context, _ tools.Call, p JobParams) (tools.Result, error) {
			if strings.TrimSpace(p.ID) == "" {
				return tools.Result{Text: jobs.list()}, nil
			}
			j, msg := jobs.get(p.ID)
			if j == nil {
				return tools.Errorf(msg), nil
			}
			if p.Wait > 0 {
				t := time.NewTimer(min(time.Duration(p.Wait)*time.Second, MaxJobWait))
				select {
				case <-j.proc.done:
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return tools.Result{}, ctx.Err()
				}
				t.Stop()
			}
			return jobResult(j, jobs.opts.OutputCap), nil
		},
	})
}

// NewJobKill returns the job_kill tool.
func NewJobKill(jobs *Jobs) tools.Tool {
	return tools.Define(tools.Def[KillParams]{
		Name:        "job_kill",
		Description: doc("job_kill"),
		Example:     `{"id":"j1"}`,
		Run: func(_ context.Context, _ tools.Call, p KillParams) (tools.Result, error) {
			j, msg := jobs.get(p.ID)
			if j == nil {
				return tools.Errorf(msg), nil
			}
			j.proc.stop(jobs.opts.KillGrace)
			return jobResult(j, jobs.opts.OutputCap), nil
		},
	})
}

func jobResult(j *job, limit int) tools.Result {
	out := j.unread(limit)
	st := j.proc.status()
	var b strings.Builder
	fmt.Fprintf(&b, "job %s `%s`: %s\n", j.id, j.command, st)
	if out == "" {
		b.WriteString("[no new output]")
	} else {
		b.WriteString(out)
	}
	return tools.Result{Text: b.String(), Meta: JobMeta{ID: j.id, Running: j.proc.running(), Status: st}}
}
