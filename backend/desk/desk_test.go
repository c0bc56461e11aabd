package desk

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

type fixture struct {
	desk  *Desk
	store *store.Store
}

// newFixture is a desk on a new store, with a runner that never runs a turn here.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := func() (config.Config, error) { return config.Default(), nil }
	runner := session.New(session.Options{Store: st, Config: cfg})
	t.Cleanup(runner.Shutdown)
	hist := history.New(st)
	t.Cleanup(hist.Close)
	return &fixture{desk: New(Options{Store: st, Runner: runner, Emit: func(string, any) {}, History: hist, Config: cfg}), store: st}
}

// conversation makes a conversation with the given user and assistant texts, alternating.
func conversation(t *testing.T, f *fixture, title string, texts ...string) store.SessionInfo {
	t.Helper()
	info, err := f.desk.Create(title)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		typ, payload := store.EventUser, any(store.UserMessage{Text: text})
		if i%2 == 1 {
			typ, payload = store.EventAssistant, store.AssistantMessage{Text: text}
		}
		if _, err := f.store.Append(info.ID, typ, payload); err != nil {
			t.Fatal(err)
		}
	}
	info, _ = f.store.Session(info.ID)
	return info
}

func listed(t *testing.T, f *fixture) []string {
	t.Helper()
	list, err := f.desk.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestFoldersAndPins(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := conversation(t, f, "alpha", "hello")
	b := conversation(t, f, "beta", "hi")
	for _, bad := range []string{"", "  ", strings.Repeat("x", 81)} {
		if f.desk.CreateFolder(bad) == nil {
			t.Fatalf("folder %q accepted", bad)
		}
	}
	if err := f.desk.CreateFolder("Work"); err != nil {
		t.Fatal(err)
	}
	if err := f.desk.CreateFolder("Home"); err != nil {
		t.Fatal(err)
	}
	if f.desk.CreateFolder("Work") == nil || f.desk.Move(a.ID, "Nowhere") == nil {
		t.Fatal("a duplicate folder or a move into no folder was accepted")
	}
	if err := f.desk.Move(a.ID, "Work"); err != nil {
		t.Fatal(err)
	}
	if err := f.desk.Move(b.ID, "Work"); err != nil {
		t.Fatal(err)
	}
	if err := f.desk.RenameFolder("Work", "Job"); err != nil {
		t.Fatal(err)
	}
	if f.desk.RenameFolder("Job", "Home") == nil {
		t.Fatal("renamed onto another folder")
	}
	if got, _ := f.store.Session(a.ID); got.Folder != "Job" {
		t.Fatalf("folder after rename = %q", got.Folder)
	}
	if err := f.desk.Move(b.ID, ""); err != nil {
		t.Fatal(err)
	}
	if err := f.desk.DeleteFolder("Job"); err != nil {
		t.Fatal(err)
	}
	if names, _ := f.desk.Folders(); !slices.Equal(names, []string{"Home"}) {
		t.Fatalf("folders = %v", names)
	}
	if got, _ := f.store.Session(a.ID); got.Folder != "" {
		t.Fatalf("a deleted folder's conversation is still in it: %q", got.Folder)
	}
	if !slices.Contains(listed(t, f), a.ID) {
		t.Fatal("deleting a folder deleted its conversation")
	}
	if err := f.desk.SetPinned(b.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.store.Session(b.ID); !got.Pinned {
		t.Fatal("not pinned")
	}
}

// Delete with undo: the conversation is hidden (list, search) but nothing is lost; Restore
// brings it back where it was; the start after TrashKeep purges it.
func TestTrashRestoreAndPurge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := conversation(t, f, "alpha", "where is the quokka", "on Rottnest")
	if err := f.desk.Trash(a.ID); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(listed(t, f), a.ID) {
		t.Fatal("a trashed conversation is listed")
	}
	if m, _ := f.desk.Search("quokka"); len(m) != 0 {
		t.Fatalf("a trashed conversation is found: %+v", m)
	}
	evs, _ := f.store.Events(a.ID)
	if last := evs[len(evs)-1]; last.Type != store.EventTrash || len(evs) != 3 {
		t.Fatalf("log after Trash: %+v", evs)
	}
	if err := f.desk.Restore(a.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := f.store.Session(a.ID)
	if got.InTrash() || !got.Updated.Equal(a.Updated) || !slices.Contains(listed(t, f), a.ID) {
		t.Fatalf("after Restore: %+v", got)
	}
	if m, _ := f.desk.Search("quokka"); len(m) == 0 {
		t.Fatal("a restored conversation is not found")
	}
	// Purged only once older than the cutoff.
	if err := f.desk.Trash(a.ID); err != nil {
		t.Fatal(err)
	}
	if err := PurgeTrash(f.store, time.Now().Add(-TrashKeep)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Session(a.ID); err != nil {
		t.Fatal("purged before its time")
	}
	if err := PurgeTrash(f.store, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Session(a.ID); err == nil {
		t.Fatal("not purged")
	}
}

func TestDuplicateAtAMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ws := t.TempDir()
	a := conversation(t, f, "alpha", "one", "reply one", "two", "reply two")
	if err := f.desk.SetWorkspace(a.ID, ws); err != nil {
		t.Fatal(err)
	}
	if err := f.desk.SetToolFamily(a.ID, store.FamilyWeb, false); err != nil {
		t.Fatal(err)
	}
	dup, err := f.desk.Duplicate(a.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if dup.ID == a.ID || dup.ForkOf != a.ID || dup.ForkSeq != 2 || dup.Workspace != ws || !slices.Equal(dup.ToolsOff, []store.ToolFamily{store.FamilyWeb}) || dup.Title != "Copy of alpha" {
		t.Fatalf("duplicate: %+v", dup)
	}
	evs, _ := f.store.Events(dup.ID)
	if len(evs) != 2 || string(evs[1].Data) != `{"text":"reply one"}` {
		t.Fatalf("copied events: %+v", evs)
	}
	// A reply's turn tail comes with it.
	b := conversation(t, f, "beta", "one", "reply one")
	f.store.Append(b.ID, store.EventUsage, map[string]int{"input_tokens": 3})
	f.store.Append(b.ID, store.EventTurnEnd, store.TurnEnd{Reason: store.EndDone})
	f.store.Append(b.ID, store.EventUser, store.UserMessage{Text: "two"})
	withTail, err := f.desk.Duplicate(b.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if evs, _ := f.store.Events(withTail.ID); len(evs) != 4 || withTail.ForkSeq != 4 {
		t.Fatalf("a reply's copy has %d events (fork_seq %d)", len(evs), withTail.ForkSeq)
	}
	whole, err := f.desk.Duplicate(a.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if evs, _ := f.store.Events(whole.ID); len(evs) != 4 {
		t.Fatalf("whole copy has %d events", len(evs))
	}
	src, _ := f.store.Events(a.ID)
	if len(src) != 4 {
		t.Fatal("the source changed")
	}
}

func TestReferenceIsCompact(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	texts := []string{}
	for i := range 10 {
		texts = append(texts, "question "+strings.Repeat("long ", 100)+string(rune('a'+i)), "answer "+strings.Repeat("words ", 400))
	}
	a := conversation(t, f, "Long one", texts...)
	ref, err := f.desk.Reference(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ref, `session="`+a.ID+`"`) || !strings.Contains(ref, `title="Long one"`) || !strings.Contains(ref, "(4 earlier messages left out)") {
		t.Fatalf("reference:\n%s", ref)
	}
	if n := len([]rune(ref)); n > 3000 {
		t.Fatalf("reference is %d characters", n)
	}
}

// A reference stands for what the conversation is now: after the user edited a message, the
// abandoned version and its reply are not in it.
func TestReferenceReadsTheActivePath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := conversation(t, f, "Edited", "old question", "old answer")
	for _, e := range []store.Entry{
		{Type: store.EventBranch, Payload: store.Branch{From: 0, Reason: store.BranchEdit}},
		{Type: store.EventUser, Payload: store.UserMessage{Text: "new question"}},
		{Type: store.EventAssistant, Payload: store.AssistantMessage{Text: "new answer"}},
	} {
		if _, err := f.store.Append(a.ID, e.Type, e.Payload); err != nil {
			t.Fatal(err)
		}
	}
	ref, err := f.desk.Reference(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ref, "old") || !strings.Contains(ref, "new question") || !strings.Contains(ref, "new answer") {
		t.Fatalf("reference:\n%s", ref)
	}
}
