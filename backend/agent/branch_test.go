package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/store"
)

// TestCompactionFollowsTheBranch: a compaction made on one branch stands in that branch's
// requests only. An edit of the message before it starts a branch that reads the raw turns
// (and the context manager starts from that branch's state); switching back brings the
// summary back. One journal follows every branch, as the runner keeps it between turns.
func TestCompactionFollowsTheBranch(t *testing.T) {
	t.Parallel()
	e := newL2Env(t)
	history(t, e, 5) // seqs 1–10 old turns, 11 the question, 12–13 its call and result
	j, err := OpenJournal(e.st, e.sess)
	if err != nil {
		t.Fatal(err)
	}
	run := func(window int) string {
		t.Helper()
		if err := j.Sync(); err != nil {
			t.Fatal(err)
		}
		tu := l2Turn(e, window)
		tu.Journal = j
		tu.Context = compact.NewManager(compact.Defaults(), compact.NewMemStore(), ContextState(j.Events()))
		if end := e.agent.Run(context.Background(), tu); end.Reason != store.EndDone {
			t.Fatalf("end = %+v (%s)", end, e.types())
		}
		m := mainChats(e)
		return joined(m[len(m)-1])
	}
	run(4096) // near the window: a summary on this branch
	if len(e.compactions(t)) != 1 {
		t.Fatalf("no compaction: %s", e.types())
	}
	e.say(t, "and the other test?")
	if r := run(1 << 20); !strings.Contains(r, "SUMMARY-TEXT") || strings.Contains(r, "OLD-ANSWER-0") {
		t.Fatalf("the compacted branch:\n%.600s", r)
	}
	evs, _ := e.st.Events(e.sess)
	compacted := evs[len(evs)-1].Seq // the tip of the compacted branch

	// Edit the question the compaction was made in: the new branch forks before it.
	if _, err := e.st.AppendBatch(e.sess,
		store.Entry{Type: store.EventBranch, Payload: store.Branch{From: 10, Reason: store.BranchEdit}},
		store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: "EDITED-QUESTION"}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if st := ContextState(j.Events()); st.Mark != 0 {
		t.Fatalf("the edited branch starts from another branch's context state: %+v", st)
	}
	r := run(1 << 20)
	if strings.Contains(r, "SUMMARY-TEXT") || !strings.Contains(r, "OLD-ANSWER-0") || !strings.Contains(r, "EDITED-QUESTION") ||
		strings.Contains(r, "fix the failing test") || strings.Contains(r, "IN-FLIGHT-RESULT") {
		t.Fatalf("the edited branch:\n%.800s", r)
	}

	// Back to the compacted branch: its summary stands again.
	if _, err := e.st.Append(e.sess, store.EventBranchSwitch, store.BranchSwitch{Head: compacted}); err != nil {
		t.Fatal(err)
	}
	e.say(t, "third question")
	if r := run(1 << 20); !strings.Contains(r, "SUMMARY-TEXT") || strings.Contains(r, "OLD-ANSWER-0") || strings.Contains(r, "EDITED-QUESTION") {
		t.Fatalf("back on the compacted branch:\n%.800s", r)
	}
}
