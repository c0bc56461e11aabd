package trace

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/store"
)

// asKept turns a session's log into one recorded before requests could be rebuilt: each
// model_call keeps its body (as a gzip blob) and says nothing of what it was built from.
func asKept(t *testing.T, dir, id string) {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	calls, _, err := Calls(st, id)
	if err != nil {
		t.Fatal(err)
	}
	prints := map[uint64]*router.RequestPrint{}
	for _, c := range calls {
		p := *c.Report.Request
		if p.Blob, err = st.PutRequestBody(p.SHA256, c.Body); err != nil {
			t.Fatal(err)
		}
		p.Built = nil
		prints[c.Seq] = &p
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(txn *badger.Txn) error {
		for seq, p := range prints {
			key := binary.BigEndian.AppendUint64([]byte("e/"+id+"/"), seq)
			item, err := txn.Get(key)
			if err != nil {
				return err
			}
			var ev store.Event
			if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &ev) }); err != nil {
				return err
			}
			var rep router.CallReport
			if err := ev.Decode(&rep); err != nil {
				return err
			}
			rep.Request = p
			ev.Data, _ = json.Marshal(rep)
			b, _ := json.Marshal(ev)
			if err := txn.Set(key, b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVerifyAnOlderLog: calls recorded with their bodies kept (before requests could be
// rebuilt) are checked against those bytes and the log's user messages, and verify says they
// were not rebuilt; an edited user message is still found.
func TestVerifyAnOlderLog(t *testing.T) {
	t.Parallel()
	dir, id := recorded(t)
	asKept(t, dir, id)
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Verify(st, id)
	if err != nil || res.Verified != 2 || len(res.KeptOnly) != 2 || len(res.Rebuilt) != 0 {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if sum := strings.Join(res.Summary(), "\n"); !strings.Contains(sum, "not rebuilt (recorded before requests could be): calls 1–2") {
		t.Fatalf("summary:\n%s", sum)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	tamper(t, dir, id, store.EventUser, func(ev *store.Event) {
		ev.Data = json.RawMessage(`{"text":"Remember the number 42."}`)
	})
	_, err = Verify(open(t, dir), id)
	var m *Mismatch
	if !errors.As(err, &m) || !strings.Contains(err.Error(), "model call 1 (event 4): the user message of event 1 is not in the request") {
		t.Fatalf("verify = %v", err)
	}
}
