package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestAppendReadBack(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	info, err := s.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	if info.Title != DefaultTitle {
		t.Fatalf("title = %q, want %q", info.Title, DefaultTitle)
	}
	if _, err := s.Append(info.ID, EventUser, UserMessage{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(info.ID, EventAssistant, AssistantMessage{Text: "hello", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 || evs[0].Type != EventUser || evs[1].Type != EventAssistant {
		t.Fatalf("events = %+v", evs)
	}
	var a AssistantMessage
	if err := evs[1].Decode(&a); err != nil || a.Text != "hello" || a.Model != "m" {
		t.Fatalf("decode = %+v, %v", a, err)
	}
	got, _ := s.Session(info.ID)
	if got.Events != 2 || !got.Updated.Equal(evs[1].Time) {
		t.Fatalf("meta = %+v", got)
	}
	from, err := s.EventsFrom(info.ID, 2)
	if err != nil || len(from) != 1 || from[0].Seq != 2 {
		t.Fatalf("EventsFrom = %+v, %v", from, err)
	}
}

func TestUnknownSession(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	if _, err := s.Append("nope", EventUser, UserMessage{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Append to unknown session: %v", err)
	}
	if _, err := s.Events("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Events of unknown session: %v", err)
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.CreateSession("first")
	b, _ := s.CreateSession("second")
	s.Append(a.ID, EventUser, UserMessage{Text: "one"})
	s.Append(b.ID, EventUser, UserMessage{Text: "two"})
	s.UpdateSession(b.ID, func(i *SessionInfo) { i.Title = "renamed" })
	if err := s.PutJSON("settings", map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.Sessions()
	if err != nil || len(list) != 2 {
		t.Fatalf("Sessions = %+v, %v", list, err)
	}
	// b was renamed last, but renaming is not activity: order is by last event.
	if list[0].ID != b.ID || list[0].Title != "renamed" || list[1].Title != "first" {
		t.Fatalf("order/titles after reopen: %+v", list)
	}
	evs, _ := s.Events(a.ID)
	var u UserMessage
	if len(evs) != 1 || evs[0].Decode(&u) != nil || u.Text != "one" {
		t.Fatalf("events after reopen: %+v", evs)
	}
	var kv map[string]string
	if ok, err := s.GetJSON("settings", &kv); !ok || err != nil || kv["k"] != "v" {
		t.Fatalf("GetJSON = %v %v %v", kv, ok, err)
	}
	if ok, err := s.GetJSON("missing", &kv); ok || err != nil {
		t.Fatalf("GetJSON missing = %v %v", ok, err)
	}
}

func TestSessionsOrderedByActivity(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	a, _ := s.CreateSession("a")
	b, _ := s.CreateSession("b")
	c, _ := s.CreateSession("c")
	time.Sleep(2 * time.Millisecond) // distinct timestamps, not a timing assertion
	s.Append(a.ID, EventUser, UserMessage{Text: "x"})
	list, _ := s.Sessions()
	if list[0].ID != a.ID || list[1].ID != c.ID || list[2].ID != b.ID {
		t.Fatalf("order = %s %s %s, want a c b", list[0].Title, list[1].Title, list[2].Title)
	}
}

func TestDeleteSession(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	a, _ := s.CreateSession("a")
	keep, _ := s.CreateSession("keep")
	for i := 0; i < 2500; i++ { // more than one delete batch
		if _, err := s.Append(a.ID, EventUser, UserMessage{Text: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Append(keep.ID, EventUser, UserMessage{Text: "stay"})
	if err := s.DeleteSession(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted session still there: %v", err)
	}
	if err := s.DeleteSession(a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	list, _ := s.Sessions()
	if len(list) != 1 || list[0].ID != keep.ID {
		t.Fatalf("list after delete: %+v", list)
	}
	if evs, _ := s.Events(keep.ID); len(evs) != 1 {
		t.Fatalf("other session lost events: %+v", evs)
	}
}

func TestConcurrentAppendsAreGapless(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	info, _ := s.CreateSession("c")
	var seen sync.Map
	cancel := s.Subscribe(func(ev Event) { seen.Store(ev.Seq, true) })
	defer cancel()
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := s.Append(info.ID, EventUser, UserMessage{Text: fmt.Sprintf("%d-%d", w, i)}); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	evs, _ := s.Events(info.ID)
	if len(evs) != writers*each {
		t.Fatalf("got %d events, want %d", len(evs), writers*each)
	}
	texts := map[string]bool{}
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		var u UserMessage
		ev.Decode(&u)
		texts[u.Text] = true
		if _, ok := seen.Load(ev.Seq); !ok {
			t.Fatalf("subscriber missed seq %d", ev.Seq)
		}
	}
	if len(texts) != writers*each {
		t.Fatalf("lost or duplicated payloads: %d distinct", len(texts))
	}
}

func TestSubscriberSeesOnlyDurableEvents(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	info, _ := s.CreateSession("d")
	var got []Event
	s.Subscribe(func(ev Event) {
		// When a subscriber hears of an event it must already be readable from the store.
		evs, err := s.Events(ev.Session)
		if err != nil || len(evs) == 0 || evs[len(evs)-1].Seq != ev.Seq {
			t.Errorf("published event %d not yet readable: %v", ev.Seq, err)
		}
		got = append(got, ev)
	})
	s.Append(info.ID, EventUser, UserMessage{Text: "a"})
	if len(got) != 1 {
		t.Fatalf("subscriber got %d events", len(got))
	}
}

func TestSecondOpenIsLocked(t *testing.T) {
	t.Parallel()
	_, dir := openTemp(t)
	// Another process, as a second Tofu would be.
	cmd := exec.Command(os.Args[0], "-test.run=TestHelperProcess")
	cmd.Env = append(os.Environ(), "TOFU_STORE_HELPER=open", "TOFU_STORE_DIR="+dir)
	out, _ := cmd.CombinedOutput()
	if want := "locked"; !containsLine(string(out), want) {
		t.Fatalf("second process output %q, want %q", out, want)
	}
}

// TestKilledWriter kills a process in the middle of appending and checks that every event it
// reported as appended survives, with no gap and no torn record.
func TestKilledWriter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := s.CreateSession("killed")
	s.Close()

	cmd := exec.Command(os.Args[0], "-test.run=TestHelperProcess")
	cmd.Env = append(os.Environ(), "TOFU_STORE_HELPER=write", "TOFU_STORE_DIR="+dir, "TOFU_STORE_SESSION="+info.ID)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var acked uint64
	for sc.Scan() {
		n, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			continue
		}
		acked = n
		if acked >= 50 {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if acked < 50 {
		t.Fatalf("writer acknowledged only %d events", acked)
	}

	s, err = Open(dir)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	evs, err := s.Events(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(evs)) < acked {
		t.Fatalf("after kill: %d events, but %d were acknowledged", len(evs), acked)
	}
	for i, ev := range evs {
		var u UserMessage
		if ev.Seq != uint64(i+1) || ev.Decode(&u) != nil || u.Text != strconv.Itoa(i+1) {
			t.Fatalf("event %d corrupt: %+v", i, ev)
		}
	}
	meta, _ := s.Session(info.ID)
	if meta.Events != uint64(len(evs)) {
		t.Fatalf("meta says %d events, log has %d", meta.Events, len(evs))
	}
	// The log goes on where it stopped.
	ev, err := s.Append(info.ID, EventUser, UserMessage{Text: "after"})
	if err != nil || ev.Seq != uint64(len(evs))+1 {
		t.Fatalf("append after kill: %+v %v", ev, err)
	}
}

// TestHelperProcess is not a test: the tests above run the test binary as a second process.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("TOFU_STORE_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	s, err := Open(os.Getenv("TOFU_STORE_DIR"))
	if errors.Is(err, ErrLocked) {
		fmt.Println("locked")
		os.Exit(0)
	}
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if mode == "write" {
		id := os.Getenv("TOFU_STORE_SESSION")
		for i := 1; ; i++ {
			ev, err := s.Append(id, EventUser, UserMessage{Text: strconv.Itoa(i)})
			if err != nil {
				fmt.Println("error:", err)
				os.Exit(1)
			}
			fmt.Println(ev.Seq)
		}
	}
	fmt.Println("opened")
	os.Exit(0)
}

func containsLine(out, want string) bool {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if sc.Text() == want {
			return true
		}
	}
	return false
}
