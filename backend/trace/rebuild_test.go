package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/tofu-research/tofu/backend/store"
)

// TestRebuildEveryWireFormat: a real agent session (tool calls, tool results, the context
// manager on) over each wire format: every request rebuilt from the log is byte for byte the
// body the model server received, and verify rebuilds them all.
func TestRebuildEveryWireFormat(t *testing.T) {
	t.Parallel()
	for _, w := range wireTypes {
		t.Run(w.wire, func(t *testing.T) {
			t.Parallel()
			dir, id, bodies := agentSession(t, w.wire, 4)
			st := open(t, dir)
			res, err := Verify(st, id)
			if err != nil || len(res.Rebuilt) != 4 || res.Verified != 4 || len(res.KeptOnly) != 0 {
				t.Fatalf("verify: %+v %v", res, err)
			}
			if len(res.FromSystem) != 4 || len(res.FromTools) != 4 || len(res.FromContext) != 4 || fmt.Sprint(res.Formats) != "["+w.wire+"]" {
				t.Fatalf("parts: %+v", res)
			}
			if sum := strings.Join(res.Summary(), "\n"); !strings.Contains(sum, "rebuilt from the log and hashed: calls 1–4") ||
				!strings.Contains(sum, "the system prompt (from the settings and instruction files of the time), calls 1–4") {
				t.Fatalf("summary:\n%s", sum)
			}
			calls, _, err := Calls(st, id)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range calls {
				if !c.Rebuilt || !bytes.Equal(c.Body, bodies[i]) {
					t.Fatalf("call %d rebuilt (%v, %v):\n%s\nthe server received:\n%s", c.N, c.Rebuilt, c.Err, c.Body, bodies[i])
				}
				if p := c.Report.Request; p.Blob != "" || p.Format != w.wire {
					t.Fatalf("call %d: %+v (the body is kept, or the format is wrong)", c.N, p)
				}
			}
		})
	}
}

// TestVerifyFindsAnEditOfEachPart: verify stops at the first request that the edited log (or
// request part) no longer rebuilds, over each wire format.
func TestVerifyFindsAnEditOfEachPart(t *testing.T) {
	t.Parallel()
	rewrite := func(field, text string) func(ev *store.Event) {
		return func(ev *store.Event) {
			var m map[string]any
			if err := json.Unmarshal(ev.Data, &m); err != nil {
				panic(err)
			}
			m[field] = text
			ev.Data, _ = json.Marshal(m)
		}
	}
	cases := []struct {
		name string
		edit func(t *testing.T, dir, id string)
		want string
	}{
		{"user message", func(t *testing.T, dir, id string) {
			tamper(t, dir, id, store.EventUser, rewrite("text", "Read only the first file."))
		}, "model call 1 (event 5): the request rebuilt from the log (events up to 2) hashes to"},
		{"tool result", func(t *testing.T, dir, id string) {
			tamper(t, dir, id, store.EventToolResult, rewrite("text", "file 0 is empty"))
		}, "model call 2 "},
		{"assistant message", func(t *testing.T, dir, id string) {
			tamper(t, dir, id, store.EventAssistant, rewrite("text", "I will read nothing."))
		}, "model call 2 "},
		{"system prompt", func(t *testing.T, dir, id string) {
			editSystemPrompt(t, dir, id)
		}, "model call 1 (event 5): the request could not be rebuilt: the system prompt (part/"},
	}
	for _, w := range wireTypes {
		for _, c := range cases {
			t.Run(w.wire+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				dir, id, _ := agentSession(t, w.wire, 3)
				c.edit(t, dir, id)
				_, err := Verify(open(t, dir), id)
				var m *Mismatch
				if !errors.As(err, &m) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("verify = %v, want a mismatch %q", err, c.want)
				}
			})
		}
	}
}

// editSystemPrompt rewrites the system prompt blob the session's first call names, behind the
// store's back.
func editSystemPrompt(t *testing.T, dir, id string) {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	calls, _, err := Calls(st, id)
	st.Close()
	if err != nil || len(calls) == 0 || calls[0].Report.Request.Built == nil {
		t.Fatalf("calls: %v", err)
	}
	editPart(t, dir, calls[0].Report.Request.Built.System, "Tofu", "Tofo")
}

// editPart replaces the first old in the request part key with new, behind the store's back.
func editPart(t *testing.T, dir, key, old, new string) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(txn *badger.Txn) error {
		chunk := binary.BigEndian.AppendUint32([]byte("c/"+key+"/"), 0)
		item, err := txn.Get(chunk)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		if !bytes.Contains(v, []byte(old)) {
			return fmt.Errorf("%s does not hold %q", key, old)
		}
		return txn.Set(chunk, bytes.Replace(v, []byte(old), []byte(new), 1))
	})
	if err != nil {
		t.Fatal(err)
	}
}
