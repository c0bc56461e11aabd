//go:build unix

package store

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestLockReleasedWhileAChildHoldsTheDescriptor: a process forked while the lock is held (here
// one that keeps the descriptor past exec, as every child does between fork and exec) must not
// keep the directory locked once Tofu lets go of it; Open refused a fresh directory as
// "database in use" when a parallel test's exec came at that moment.
func TestLockReleasedWhileAChildHoldsTheDescriptor(t *testing.T) {
	dir := t.TempDir()
	lock, child := lockedWithChild(t, dir)
	defer func() { child.Process.Kill(); child.Wait() }()
	lock.unlock()
	again, ok := lockDir(dir)
	if !ok {
		t.Fatal("the directory stays locked by the child's copy of the descriptor")
	}
	again.unlock()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}

// TestOpenWaitsOutAChildsLock: Badger lets go of its lock by closing the directory, which a
// child forked at that moment still shares until it execs; Open waits that out instead of
// calling the database in use.
func TestOpenWaitsOutAChildsLock(t *testing.T) {
	dir := t.TempDir()
	lock, child := lockedWithChild(t, dir)
	lock.f.Close() // as Badger's release does: the child's copy keeps the lock
	defer func(d time.Duration) { lockedRetry = d }(lockedRetry)
	lockedRetry = time.Minute // the child is killed below; no wait on time is judged
	opened := make(chan error, 1)
	go func() {
		st, err := Open(dir)
		if err == nil {
			st.Close()
		}
		opened <- err
	}()
	child.Process.Kill()
	child.Wait()
	if err := <-opened; err != nil {
		t.Fatalf("Open after the child let go: %v", err)
	}
}

// lockedWithChild locks the fresh dir and starts a child that holds a copy of the lock's
// descriptor, as a child forked while it is held does until it execs.
func lockedWithChild(t *testing.T, dir string) (*dirLock, *exec.Cmd) {
	t.Helper()
	lock, ok := lockDir(dir)
	if !ok {
		t.Fatal("a fresh directory is locked")
	}
	child := exec.Command("sleep", "60")
	child.ExtraFiles = []*os.File{lock.f}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	return lock, child
}
