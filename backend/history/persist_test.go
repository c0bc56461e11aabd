package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// queries cover words, identifiers in tool arguments, titles and Chinese.
var persistQueries = []string{"value log growing", "RunValueLogGC", "grep", "数据库压缩", "w3 w5", "w17", "benchmark", "索引重建 w100", "release notes"}

// result is a search's answer reduced to what two indexes of the same logs must agree on.
func result(t testing.TB, x *Index, q string) []string {
	t.Helper()
	found, err := x.Search(q, 1<<20) // all: ties at a cut are broken by indexing order
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(found))
	for _, m := range found {
		out = append(out, fmt.Sprintf("%s#%d %q %.9f %s", m.Session, m.Seq, m.Title, m.Score, m.Snippet))
	}
	return out
}

// fresh is what an index built from nothing finds: the index's keys are dropped and it is
// opened again.
func fresh(t testing.TB, st *store.Store) map[string][]string {
	t.Helper()
	if err := st.Badger().DropPrefix([]byte(prefix)); err != nil {
		t.Fatal(err)
	}
	x := New(st)
	defer x.Close()
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	if s := x.Stats(); s.Rebuilds != 1 {
		t.Fatalf("a dropped index was not rebuilt: %+v", s)
	}
	out := map[string][]string{}
	for _, q := range persistQueries {
		out[q] = result(t, x, q)
	}
	return out
}

func all(t testing.TB, x *Index) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, q := range persistQueries {
		out[q] = result(t, x, q)
	}
	return out
}

func same(t *testing.T, what string, got, want map[string][]string) {
	t.Helper()
	for _, q := range persistQueries {
		if fmt.Sprint(got[q]) == fmt.Sprint(want[q]) {
			continue
		}
		for i := range max(len(got[q]), len(want[q])) {
			var g, w string
			if i < len(got[q]) {
				g = got[q][i]
			}
			if i < len(want[q]) {
				w = want[q][i]
			}
			if g != w {
				t.Errorf("%s: %q finds %d, a fresh build %d; first difference at %d:\n%.200s\n%.200s", what, q, len(got[q]), len(want[q]), i, g, w)
				break
			}
		}
	}
}

// fill fills st with n messages over several sessions, a tool call and a Chinese one. x follows
// them a flush at a time (a Sync after each flushAt messages), so n/flushAt flushes happen
// however fast the appends outrun the index's worker, and a merge after 8 of them.
func fill(t testing.TB, st *store.Store, x *Index, n int) []string {
	t.Helper()
	var ids []string
	for i := range 5 {
		info, err := st.CreateSession(fmt.Sprintf("benchmark %d", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	evs := synthetic(n, ids)
	for len(evs) > 0 {
		chunk := evs[:min(x.flushAt, len(evs))]
		evs = evs[len(chunk):]
		appendAll(t, st, chunk)
		if err := x.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Append(ids[0], store.EventAssistant, store.AssistantMessage{Text: "Run garbage collection.",
		ToolCalls: []llm.ToolCall{{ID: "1", Name: "grep", Arguments: json.RawMessage(`{"pattern":"RunValueLogGC"}`)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ids[1], store.EventUser, store.UserMessage{Text: "请解释一下数据库压缩的原理, and why the value log keeps growing"}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// smallFlush is the flush size of the tests that need flushes and merges: the same segments,
// merged after 8 flushes as in use, from an eighth of the messages (a test under -race spent
// 10-20 s appending 3,000).
const smallFlush = flushDocs / 8

// TestIndexPersists: the index is kept in Badger; reopened, it reads nothing again (counted)
// and finds what a fresh build finds, after merges, a deletion and a rename.
func TestIndexPersists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	x := open(st, smallFlush)
	ids := fill(t, st, x, 375)
	if err := st.DeleteSession(ids[4]); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateSession(ids[2], func(i *store.SessionInfo) { i.Title = "Release notes" }); err != nil {
		t.Fatal(err)
	}
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	if s := x.Stats(); s.Merges == 0 || s.Flushes == 0 {
		t.Fatalf("375 messages (12 flushes) made no merge: %+v", s)
	}
	before := all(t, x)
	if len(before["w17"]) == 0 || len(before["release notes"]) == 0 || len(before["RunValueLogGC"]) == 0 {
		t.Fatalf("searches before the restart found %d, %d, %d", len(before["w17"]), len(before["release notes"]), len(before["RunValueLogGC"]))
	}
	x.Close()
	st.Close()

	st, err = store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x = open(st, smallFlush)
	after := all(t, x)
	if s := x.Stats(); s.Rebuilds != 0 || s.Replayed != 0 {
		t.Fatalf("the restart read the logs again: %+v", s)
	}
	x.Close()
	same(t, "after a restart", after, before)
	same(t, "before a restart", before, fresh(t, st))
}

// TestRenameRetitles: a renamed session's messages are found by the new title, not the old,
// at once and after a restart.
func TestRenameRetitles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := New(st)
	defer x.Close()
	id := session(t, st, "Badger tuning", store.UserMessage{Text: "Why does the value log keep growing?"})
	if got := result(t, x, "badger tuning"); len(got) != 1 {
		t.Fatalf("by the title: %v", got)
	}
	if _, err := st.UpdateSession(id, func(i *store.SessionInfo) { i.Title = "Compaction notes" }); err != nil {
		t.Fatal(err)
	}
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	found, err := x.Search("compaction notes", 5)
	if err != nil || len(found) != 1 || found[0].Title != "Compaction notes" || found[0].Session != id {
		t.Fatalf("by the new title: %+v %v", found, err)
	}
	if got := result(t, x, "badger tuning"); len(got) != 0 {
		t.Fatalf("still found by the old title: %v", got)
	}
	x.Close()
	// Renamed while no index followed (another process): the next open notices.
	if _, err := st.UpdateSession(id, func(i *store.SessionInfo) { i.Title = "Value log" }); err != nil {
		t.Fatal(err)
	}
	x = New(st)
	defer x.Close()
	if found, _ := x.Search("compaction notes", 5); len(found) != 0 {
		t.Fatalf("after a rename while closed, the old title: %+v", found)
	}
	if found, _ := x.Search("value log", 5); len(found) != 1 || found[0].Title != "Value log" {
		t.Fatalf("after a rename while closed: %+v", found)
	}
}

// TestFormatChangeRebuilds: an index of another format version is dropped and built again.
func TestFormatChangeRebuilds(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	x := New(st)
	session(t, st, "Badger tuning", store.UserMessage{Text: "Why does the value log keep growing?"})
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	x.Close()
	err := st.Badger().Update(func(txn *badger.Txn) error {
		return setJSON(txn, []byte(metaKey), meta{Version: formatVersion - 1, NextDoc: 7})
	})
	if err != nil {
		t.Fatal(err)
	}
	x = New(st)
	defer x.Close()
	if got := result(t, x, "value log"); len(got) != 1 {
		t.Fatalf("after a format change: %v", got)
	}
	if s := x.Stats(); s.Rebuilds != 1 || s.Replayed != 1 {
		t.Fatalf("stats %+v, want one rebuild reading the one event", s)
	}
}

// TestKilledWhileIndexing kills a process appending messages (the index following them,
// flushing and merging) and checks that the next open repairs the index from where it
// stopped, without a rebuild, and finds what a fresh build finds.
func TestKilledWhileIndexing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	x := open(st, smallFlush)
	ids := fill(t, st, x, 40)
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	x.Close()
	st.Close()

	cmd := exec.Command(os.Args[0], "-test.run=TestHistoryHelper")
	cmd.Env = append(os.Environ(), "TOFU_HISTORY_HELPER="+dir, "TOFU_HISTORY_SESSION="+ids[3])
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	acked := 0
	for sc.Scan() && acked < 330 { // past the first merge of 8 flushes
		if n, err := strconv.Atoi(sc.Text()); err == nil {
			acked = n
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if acked < 330 {
		t.Fatalf("the helper acknowledged %d messages", acked)
	}

	st, err = store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Written with no index following, as if Tofu died between these appends and their
	// indexing: the next open must read them, whatever the kill left unflushed.
	for i := range 5 {
		if _, err := st.Append(ids[2], store.EventUser, store.UserMessage{Text: fmt.Sprintf("unindexed release notes %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	x = open(st, smallFlush)
	got := all(t, x)
	s := x.Stats()
	x.Close()
	// The tail, not the whole log (the kill may land during a merge, with more pending).
	if s.Rebuilds != 0 || s.Replayed < 5 || s.Replayed >= acked {
		t.Fatalf("after the kill: %+v, want the unflushed tail read again, no rebuild", s)
	}
	if len(got["release notes"]) < 5 {
		t.Fatalf("the messages appended unindexed are not found: %d", len(got["release notes"]))
	}
	if len(got["w17"]) == 0 {
		t.Fatal("nothing found after the kill")
	}
	same(t, "after a kill", got, fresh(t, st))
}

// TestHistoryHelper is not a test: TestKilledWhileIndexing runs the test binary as the
// process it kills.
func TestHistoryHelper(t *testing.T) {
	dir := os.Getenv("TOFU_HISTORY_HELPER")
	if dir == "" {
		t.Skip("helper process only")
	}
	st, err := store.Open(dir)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	x := open(st, smallFlush)
	_ = x
	id := os.Getenv("TOFU_HISTORY_SESSION")
	evs := synthetic(1000, []string{id}) // appended round and round until killed
	for i := 0; ; i += 10 {
		var batch []store.Entry
		for _, ev := range evs[i%len(evs) : i%len(evs)+10] {
			batch = append(batch, store.Entry{Type: ev.Type, Payload: ev.Data})
		}
		if _, err := st.AppendBatch(id, batch...); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println(i + 10) // indexed too: the store publishes before AppendBatch returns
	}
}

// TestHugeMessage: a message with more distinct words than a transaction holds postings for is
// indexed (its first maxDocTerms words), and the flush goes through.
func TestHugeMessage(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	x := New(st)
	t.Cleanup(x.Close)
	var b strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&b, "word%d ", i)
	}
	id := session(t, st, "paste", store.UserMessage{Text: b.String()}, store.UserMessage{Text: "after the paste"})
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	if got, err := x.Search("word17", 5); err != nil || len(got) != 1 || got[0].Session != id {
		t.Fatalf("in the paste: %+v %v", got, err)
	}
	if got, _ := x.Search("after the paste", 5); len(got) == 0 || got[0].Seq != 2 {
		t.Fatalf("after the paste: %+v", got)
	}
}
