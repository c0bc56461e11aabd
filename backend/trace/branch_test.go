package trace

import (
	"context"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestRebuildAcrossBranches: an edited message and a regenerated reply are branches of the
// log; every call rebuilds from the path that was active when it was made, those now off the
// active path too.
func TestRebuildAcrossBranches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Text: "Noted."})
	r := runner(t, st, srv, llm.WireOpenAI)
	info, err := st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	turn := func() {
		t.Helper()
		if end, err := r.Run(context.Background(), session.Request{Session: info.ID}); err != nil || end.Reason != store.EndDone {
			t.Fatalf("turn: %+v %v", end, err)
		}
	}
	var users []uint64
	for _, text := range []string{"Remember the number 41.", "And add one."} {
		ev, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, ev.Seq)
		turn()
	}
	if err := r.Edit(info.ID, users[1], "And add two."); err != nil {
		t.Fatal(err)
	}
	turn()
	evs, err := st.Events(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Regenerate(info.ID, evs[len(evs)-1].Seq); err != nil {
		t.Fatal(err)
	}
	turn()
	r.Shutdown()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(open(t, dir), info.ID)
	if err != nil || len(res.Rebuilt) != 4 {
		t.Fatalf("verify: %+v %v", res, err)
	}
}
