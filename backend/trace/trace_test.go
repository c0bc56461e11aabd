package trace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// recorded runs a real two-turn session through the turn runner, the gateway and the scripted
// model (over Ollama's wire format), and returns the store's folder and the session.
func recorded(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Text: "Noted."})
	cfg := config.Config{Providers: []config.Provider{{Name: "local", Type: config.TypeOllama, BaseURL: srv.URL}}}
	cfg.Models.Main = scripted.DemoModelName
	gw, err := gateway.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := session.New(session.Options{
		Store:    st,
		Provider: func() (llm.Provider, string, error) { return gw, srv.URL, nil },
		Config:   func() (config.Config, error) { return cfg, nil },
	})
	info, err := st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Remember the number 41.", "And add one."} {
		if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: text}); err != nil {
			t.Fatal(err)
		}
		if end, err := r.Run(context.Background(), session.Request{Session: info.ID}); err != nil || end.Reason != store.EndDone {
			t.Fatalf("turn: %+v %v", end, err)
		}
	}
	r.Shutdown()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, info.ID
}

func open(t testing.TB, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestVerifyARealSession: every model call of a real session carries the fingerprint of the
// bytes the Ollama client sent, and the log rebuilds them.
func TestVerifyARealSession(t *testing.T) {
	t.Parallel()
	dir, id := recorded(t)
	st := open(t, dir)
	res, err := Verify(st, id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 2 || res.Verified != 2 {
		t.Fatalf("verified %d of %d calls, want 2 of 2", res.Verified, res.Calls)
	}
	calls, _, err := Calls(st, id)
	if err != nil {
		t.Fatal(err)
	}
	if p := calls[1].Report.Request; p.Format != llm.WireOllama || !bytes.Contains(calls[1].Body, []byte(`"And add one."`)) {
		t.Fatalf("second request: %+v %s", p, calls[1].Body)
	}
}

// tamper rewrites the first event of type typ in the session's log, behind the store's back.
func tamper(t *testing.T, dir, id string, typ store.EventType, edit func(ev *store.Event)) {
	t.Helper()
	tamperWhere(t, dir, id, func(ev store.Event) bool { return ev.Type == typ }, edit)
}

// tamperWhere edits the first event of the session that is, behind the store's back.
func tamperWhere(t *testing.T, dir, id string, is func(store.Event) bool, edit func(ev *store.Event)) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		prefix := []byte("e/" + id + "/")
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			var ev store.Event
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &ev) }); err != nil {
				return err
			}
			if !is(ev) {
				continue
			}
			edit(&ev)
			b, _ := json.Marshal(ev)
			return txn.Set(binary.BigEndian.AppendUint64(prefix, ev.Seq), b)
		}
		return errors.New("no such event")
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerifyFindsATamperedLog(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		typ  store.EventType
		edit func(ev *store.Event)
		want string
	}{
		{"user message edited", store.EventUser, func(ev *store.Event) {
			ev.Data = json.RawMessage(`{"text":"Remember the number 42."}`)
		}, "model call 1 (event 4): the request rebuilt from the log (events up to 1) hashes to"},
		{"fingerprint edited", store.EventModelCall, func(ev *store.Event) {
			ev.Data = bytes.Replace(ev.Data, []byte(`"sha256":"`), []byte(`"sha256":"00`), 1)
		}, "model call 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, id := recorded(t)
			tamper(t, dir, id, c.typ, c.edit)
			_, err := Verify(open(t, dir), id)
			var m *Mismatch
			if !errors.As(err, &m) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("verify = %v, want a mismatch %q", err, c.want)
			}
		})
	}
}

// TestExportFormats: each format is valid JSON; the mini-swe-agent export is read back by
// tofu eval replay's loader with one request per model call.
func TestExportFormats(t *testing.T) {
	t.Parallel()
	dir, id := recorded(t)
	st := open(t, dir)
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := Export(&buf, st, id, f); err != nil {
			t.Fatal(f, err)
		}
		if !json.Valid(buf.Bytes()) || !strings.Contains(buf.String(), "And add one.") {
			t.Fatalf("%s: %s", f, buf.String())
		}
		if f == FormatTofu {
			// Each body is there, rebuilt from the log, and hashes to its fingerprint.
			var doc struct{ Requests []exportedRequest }
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.Requests) != 2 {
				t.Fatalf("tofu export: %v %+v", err, doc)
			}
			for _, r := range doc.Requests {
				var compact bytes.Buffer
				if err := json.Compact(&compact, r.Body); err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(compact.Bytes())
				if !r.Rebuilt || hex.EncodeToString(sum[:]) != r.SHA256 {
					t.Fatalf("request %d: rebuilt %v, body %s", r.Call, r.Rebuilt, r.Body)
				}
			}
		}
		if f == FormatMiniSWEAgent {
			path := filepath.Join(t.TempDir(), "s.traj.json")
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			traj, err := eval.LoadTrajectory(path)
			if err != nil || traj.Calls() != 2 {
				t.Fatalf("replay loader: %v, %+v\n%s", err, traj, buf.String())
			}
		}
	}
	if err := Export(&bytes.Buffer{}, st, id, "xml"); err == nil {
		t.Fatal("an unknown format was accepted")
	}
}
