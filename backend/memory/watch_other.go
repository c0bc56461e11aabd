//go:build !linux

package memory

// folderWatch without inotify: every folder is scanned at every search.
type folderWatch struct{}

func newFolderWatch() *folderWatch                   { return &folderWatch{} }
func (w *folderWatch) unchanged(string, uint64) bool { return false }
func (w *folderWatch) watch(string) uint64           { return 0 }
