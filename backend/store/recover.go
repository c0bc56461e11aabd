package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// removeEmptyMemtables deletes the memtable files (NNNNN.mem) that are empty. Badger creates
// one each time it opens and sizes it a moment later; a process killed in between leaves a
// 0-byte file, and Badger then refuses to open the database (dgraph-io/badger#2207). An empty
// file holds no write, so removing it loses nothing. It only looks while it holds the lock
// Badger takes on the directory: a running Tofu's new file is never touched.
func removeEmptyMemtables(dir string) error {
	lock, ok := lockDir(dir)
	if !ok {
		return nil // in use: Open reports it
	}
	defer lock.unlock()
	mems, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil {
		return err
	}
	for _, m := range mems {
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			if err := os.Remove(m); err != nil {
				return fmt.Errorf("remove the empty memtable file left by a crash: %w", err)
			}
		}
	}
	return nil
}
