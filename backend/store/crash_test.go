package store

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestOpenAfterKillDuringOpen: a Tofu killed while Badger created its next memtable file
// leaves that file empty, and Badger then refuses to open the database ("while opening
// memtables … Create a new file", dgraph-io/badger#2207). Found by the kill test; the store
// opens it, and nothing is lost.
func TestOpenAfterKillDuringOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := s.CreateSession("")
	if _, err := s.Append(info.ID, EventUser, UserMessage{Text: "kept"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	mems, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	next := len(mems) + 1
	for {
		name := filepath.Join(dir, pad5(next)+".mem")
		if _, err := os.Stat(name); os.IsNotExist(err) {
			if err := os.WriteFile(name, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			break
		}
		next++
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatalf("open after an interrupted open: %v", err)
	}
	defer s.Close()
	evs, err := s.Events(info.ID)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %v, %v", evs, err)
	}
}

func pad5(n int) string {
	s := "0000" + strconv.Itoa(n)
	return s[len(s)-5:]
}

// TestEmptyMemtableOfARunningStore: while a store has the directory, its files are not
// touched (an empty one may be the file it is creating).
func TestEmptyMemtableOfARunningStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	name := filepath.Join(dir, "99999.mem")
	if err := os.WriteFile(name, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(name)
	if err := removeEmptyMemtables(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); err != nil {
		t.Fatalf("a running store's file was removed: %v", err)
	}
}
