package memory

import (
	"testing"

	"github.com/tofu-research/tofu/backend/store"
)

// The panel's round: create disabled, find it by search (disabled included), edit, see the
// turn that used it, delete.
func TestMemoryService(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := NewPanel(NewStore(t.TempDir()), st)
	ws := t.TempDir()
	r, err := s.Save(ws, Record{Name: "Deploy", Body: "Use the rollout script.", Enabled: false})
	if err != nil || r.Enabled || r.Scope != ScopeProject {
		t.Fatalf("save: %+v %v", r, err)
	}
	if found, _ := s.Search(ws, "rollout script"); len(found) != 1 || found[0].ID != r.ID {
		t.Fatalf("search: %+v", found)
	}
	r.Body, r.Enabled = "Use kubectl rollout.", true
	if r, err = s.Save(ws, r); err != nil || !r.Enabled || r.Body != "Use kubectl rollout." {
		t.Fatalf("edit: %+v %v", r, err)
	}
	info, _ := st.CreateSession("deploying")
	if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: "deploy?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(info.ID, store.EventMemoryRecall, store.MemoryRecall{Text: "x", Records: []store.RecalledRecord{{ID: r.ID, Name: r.Name}}}); err != nil {
		t.Fatal(err)
	}
	uses, err := s.Uses(r.ID)
	if err != nil || len(uses) != 1 || uses[0].Session != info.ID || uses[0].Seq != 1 || uses[0].Title != "deploying" {
		t.Fatalf("uses: %+v %v", uses, err)
	}
	if err := s.Delete(ws, r.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(ws); len(list) != 0 {
		t.Fatalf("after delete: %+v", list)
	}
	if _, err := NewPanel(nil, st).List(ws); err == nil {
		t.Fatal("no memory store, no error")
	}
}
