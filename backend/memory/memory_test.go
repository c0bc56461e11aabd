package memory

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	s := NewStore(t.TempDir())
	s.now = func() time.Time { return time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC) }
	return s, t.TempDir()
}

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	r := Record{
		Name: "Badger: value log GC", Description: "true", Tags: []string{"storage", "a, b", "数据库"},
		Scope: ScopeProject, Enabled: false, Body: "Run `RunValueLogGC` at night.\n\n---\nnot front matter",
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Updated: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC),
	}
	got, err := Parse(r.Format())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("round trip:\n%+v\nwant\n%+v\nfile:\n%s", got, r, r.Format())
	}
	// What a user may write by hand: single quotes, a block list, comments, CRLF.
	hand := "---\r\nname: 'It''s here' # a comment\r\ntags:\r\n  - one\r\n  - \"two\"\r\nenabled: no\r\ncreated: 2026-05-01\r\n---\r\nBody\r\n"
	got, err = Parse(hand)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "It's here" || !reflect.DeepEqual(got.Tags, []string{"one", "two"}) || got.Enabled || got.Body != "Body" || got.Created.Day() != 1 {
		t.Fatalf("hand-written: %+v", got)
	}
	if _, err := Parse("---\nname: x\nno end"); err == nil {
		t.Fatal("an unclosed front matter parsed")
	}
	if got, _ := Parse("just text"); got.Body != "just text" || !got.Enabled {
		t.Fatalf("no front matter: %+v", got)
	}
}

func TestStoreLifecycle(t *testing.T) {
	t.Parallel()
	s, ws := newStore(t)
	a, err := s.Create(ws, Record{Name: "Tests need offline.sh", Description: "running Go tests", Body: "Wrap them in build/offline.sh.", Tags: []string{"tests"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "project:tests-need-offline-sh" || a.Path != filepath.Join(ws, ProjectDir, "tests-need-offline-sh.md") {
		t.Fatalf("created %+v", a)
	}
	b, err := s.Create(ws, Record{Name: "Tests need offline.sh", Body: "Second note on tests.", Scope: ScopeGlobal})
	if err != nil {
		t.Fatal(err)
	}
	if b.ID != "global:tests-need-offline-sh" {
		t.Fatalf("global id %s", b.ID)
	}
	c, _ := s.Create(ws, Record{Name: "Tests need offline.sh", Body: "A third."})
	if c.ID != "project:tests-need-offline-sh-2" {
		t.Fatalf("taken name: %s", c.ID)
	}
	// Another workspace sees the global record only.
	other, _ := s.List(t.TempDir())
	if len(other) != 1 || other[0].ID != b.ID {
		t.Fatalf("other workspace lists %v", other)
	}
	if _, err := s.Update(ws, a.ID, func(r *Record) { r.Body = "Use build/offline.sh for every test run."; r.Enabled = false }); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Search(ws, "every test run", 5, false); len(f) != 0 && f[0].ID == a.ID {
		t.Fatalf("a disabled record was found: %v", f)
	}
	if f, _ := s.Search(ws, "every test run", 5, true); len(f) == 0 || f[0].ID != a.ID {
		t.Fatalf("with disabled: %v", f)
	}
	m, err := s.Merge(ws, []string{a.ID, c.ID}, Record{Name: "Testing", Description: "how tests run", Body: "offline.sh, always.", Tags: []string{"ci"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Tags, []string{"ci", "tests"}) {
		t.Fatalf("merged tags %v", m.Tags)
	}
	all, _ := s.List(ws)
	var got []string
	for _, r := range all {
		got = append(got, r.ID)
	}
	if want := []string{"project:testing", "global:tests-need-offline-sh"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after merge: %v, want %v", got, want)
	}
	if err := s.Delete(ws, "project:nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete unknown: %v", err)
	}
}

// A user edits, adds and breaks files by hand: the next search sees it.
func TestStoreFollowsHandEdits(t *testing.T) {
	t.Parallel()
	s, ws := newStore(t)
	r, _ := s.Create(ws, Record{Name: "Deploy", Body: "Deploy with make release."})
	dir := filepath.Join(ws, ProjectDir)
	if err := os.WriteFile(r.Path, []byte("---\nname: Deploy\n---\nDeploy with the kubectl rollout script.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain.md"), []byte("Prefer tabs in Makefiles.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.md"), []byte("---\nname: broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Search(ws, "kubectl rollout", 5, false); len(f) != 1 || f[0].ID != r.ID {
		t.Fatalf("edited record: %v", f)
	}
	if f, _ := s.Search(ws, "makefiles tabs", 5, false); len(f) != 1 || f[0].ID != "project:plain" || f[0].Name != "plain" {
		t.Fatalf("hand-added record: %v", f)
	}
	if err := os.Remove(r.Path); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Search(ws, "kubectl rollout", 5, false); len(f) != 0 {
		t.Fatalf("a removed file is still found: %v", f)
	}
}

// A Chinese and a Japanese memory are recalled by a question in their language and by
// English with identifiers; an unrelated message recalls nothing.
func TestRecallEveryLanguage(t *testing.T) {
	t.Parallel()
	s, ws := newStore(t)
	records := []Record{
		{Name: "数据库压缩策略", Description: "Badger 存储的维护", Body: "用户偏好：value log 的垃圾回收在夜间运行，调用 RunValueLogGC(0.5)。不要在白天压缩数据库。"},
		{Name: "テストの実行方法", Description: "統合テストの注意", Body: "統合テストは必ず build/offline.sh で実行する。ネットワークに接続するテストは禁止。make test_go を使う。"},
		{Name: "Commit messages", Description: "user preference", Body: "Write one sentence saying what changed; no prefixes."},
	}
	for _, r := range records {
		if _, err := s.Create(ws, r); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ query, want string }{
		{"数据库什么时候压缩？", "数据库压缩策略"},
		{"When should RunValueLogGC compact the value log?", "数据库压缩策略"},
		{"統合テストはどうやって実行しますか", "テストの実行方法"},
		{"how do I run make test_go with offline.sh", "テストの実行方法"},
		{"write the commit message for this change", "Commit messages"},
		{"The weather is nice today", ""},
		{"天气很好", ""},
	}
	for _, tc := range cases {
		found, text, err := s.Recall(ws, tc.query, RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == "" {
			if len(found) != 0 {
				t.Errorf("%q recalled %v", tc.query, found)
			}
			continue
		}
		if len(found) == 0 || found[0].Name != tc.want {
			t.Errorf("%q recalled %v, want %s first", tc.query, found, tc.want)
			continue
		}
		if !strings.HasPrefix(text, "<system-reminder>") || !strings.Contains(text, found[0].Body) {
			t.Errorf("%q: reminder %q", tc.query, text)
		}
	}
}

func TestRecallBudgets(t *testing.T) {
	t.Parallel()
	s, ws := newStore(t)
	for i := range 12 {
		body := strings.Repeat("compaction threshold tuning notes ", 20+i)
		if i >= 6 { // records that do not match make the matching ones' terms rare
			body = strings.Repeat("unrelated words about release tagging ", 10)
		}
		if _, err := s.Create(ws, Record{Name: "Note " + string(rune('A'+i)), Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	found, text, _ := s.Recall(ws, "compaction threshold", RecallOptions{MaxRecords: 2, MaxBytes: 2500})
	if len(found) != 2 || len(text) > 2500+200 {
		t.Fatalf("%d records, %d bytes", len(found), len(text))
	}
	found, text, _ = s.Recall(ws, "compaction threshold", RecallOptions{MaxBytes: 300})
	if len(found) != 1 || !strings.Contains(text, "…") {
		t.Fatalf("a record over the budget alone: %d records, %q", len(found), text)
	}
}

func TestMemoryTools(t *testing.T) {
	t.Parallel()
	s, ws := newStore(t)
	reg := tools.NewRegistry(s.Tools(ws)...)
	run := func(name, args string) tools.Result {
		t.Helper()
		res, err := reg.Run(context.Background(), tools.Call{Name: name, Arguments: json.RawMessage(args), Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	acc, aerr := reg.Access(tools.Call{Name: "memory_create", Arguments: json.RawMessage(`{"name":"Go version","description":"d","body":"b"}`), Workspace: ws})
	if aerr != nil || len(acc) != 1 || acc[0].Kind != tools.AccessWrite || acc[0].Path != filepath.Join(ws, ProjectDir, "go-version.md") {
		t.Fatalf("access %v %v", acc, aerr)
	}
	if res := run("memory_create", `{"name":"Go version","description":"toolchain","body":"The module needs Go 1.26; use GOTOOLCHAIN for 1.27.","tags":["go"]}`); res.IsError || !strings.Contains(res.Text, "project:go-version") {
		t.Fatalf("create: %+v", res)
	}
	if res := run("memory_search", `{"query":"which Go toolchain"}`); !strings.Contains(res.Text, "GOTOOLCHAIN") {
		t.Fatalf("search: %+v", res)
	}
	if res := run("memory_update", `{"id":"project:go-version","enabled":false}`); res.IsError {
		t.Fatalf("update: %+v", res)
	}
	if res := run("memory_search", `{"query":"which Go toolchain"}`); !strings.Contains(res.Text, "No memory record") {
		t.Fatalf("search after disable: %+v", res)
	}
	if res := run("memory_delete", `{"id":"project:nope"}`); !res.IsError {
		t.Fatalf("delete unknown: %+v", res)
	}
	if res := run("memory_delete", `{"id":"project:go-version"}`); res.IsError {
		t.Fatalf("delete: %+v", res)
	}
}

// Links planted in a workspace never let memory read or write outside it.
func TestLinksLeadingOutsideAreIgnored(t *testing.T) {
	t.Parallel()
	s, ws := newStore(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("---\nname: secret\n---\nTOFU-CANARY token\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ws, ProjectDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "secret.md")); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Search(ws, "secret canary token", 5, true); len(f) != 0 {
		t.Fatalf("a linked record was read: %+v", f)
	}
	// The whole folder linked outside: nothing read, nothing written there.
	ws2 := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws2, ".tofu"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws2, ProjectDir)); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(ws2); len(list) != 0 {
		t.Fatalf("records read through a linked folder: %+v", list)
	}
	if _, err := s.Create(ws2, Record{Name: "planted", Body: "x"}); err == nil {
		t.Fatal("a record was written through a linked folder")
	}
	if _, err := os.Stat(filepath.Join(outside, "planted.md")); !os.IsNotExist(err) {
		t.Fatalf("planted outside: %v", err)
	}
}

// Searches skip listing a folder nothing happened in (folderWatch), yet see at once a record
// edited in place, one added, one removed, and a folder that appears after the first search —
// in the workspace's folder and the global one, for two workspaces sharing the global one.
func TestSearchSeesEveryChangeAtOnce(t *testing.T) {
	t.Parallel()
	s, ws := newStore(t)
	other := t.TempDir()
	g, _ := s.Create("", Record{Name: "Global deploy", Body: "Deploy with make release.", Scope: ScopeGlobal})
	for _, w := range []string{ws, other} {
		if f, _ := s.Search(w, "make release", 5, false); len(f) != 1 {
			t.Fatalf("%s: %v", w, f)
		}
	}
	for i, w := range []string{ws, other, ws} {
		word := []string{"kubectl", "helm", "ansible"}[i]
		if err := os.WriteFile(g.Path, []byte("---\nname: Global deploy\n---\nDeploy with "+word+".\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if f, _ := s.Search(w, word, 5, false); len(f) != 1 || f[0].ID != g.ID {
			t.Fatalf("edit %d in place, searched from %s: %v", i, w, f)
		}
		if f, _ := s.Search(w, "make release", 5, false); len(f) != 0 {
			t.Fatalf("edit %d: the old text is found: %v", i, f)
		}
	}
	// The project folder does not exist at the first search; a record written there by hand
	// afterwards is found.
	dir := filepath.Join(ws, ProjectDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tabs.md"), []byte("Prefer tabs in Makefiles.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Search(ws, "makefiles tabs", 5, false); len(f) != 1 || f[0].ID != "project:tabs" {
		t.Fatalf("a record in a new folder: %v", f)
	}
	if err := os.Remove(filepath.Join(dir, "tabs.md")); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Search(ws, "makefiles tabs", 5, false); len(f) != 0 {
		t.Fatalf("a removed record: %v", f)
	}
}
