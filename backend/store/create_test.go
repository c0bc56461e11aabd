package store

import (
	"testing"
)

// A session created with its first events is never seen without them: its change is published
// with the events counted, and the log holds them.
func TestCreateSessionWithItsFirstEvents(t *testing.T) {
	t.Parallel()
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var seen []SessionChange
	defer st.WatchSessions(func(c SessionChange) { seen = append(seen, c) })()
	var published []Event
	defer st.Subscribe(func(ev Event) { published = append(published, ev) })()
	info, evs, err := st.CreateSessionWith(" Fix it ", func(i *SessionInfo) { i.Workspace = "/w" },
		Entry{Type: EventUser, Payload: UserMessage{Text: "fix it"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Session(info.ID)
	if err != nil || got.Title != "Fix it" || got.Workspace != "/w" || got.Events != 1 || len(evs) != 1 || evs[0].Seq != 1 {
		t.Fatalf("session %+v (%v), events %+v", got, err, evs)
	}
	if len(seen) != 1 || seen[0].Info.Events != 1 || len(published) != 1 || published[0].Type != EventUser {
		t.Fatalf("published %+v, %+v", seen, published)
	}
	log, err := st.Events(info.ID)
	if err != nil || len(log) != 1 {
		t.Fatalf("log %+v, %v", log, err)
	}
}
