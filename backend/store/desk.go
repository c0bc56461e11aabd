package store

import "time"

// EventTrash records a conversation moved to the trash or restored from it (Trash): deleting
// a conversation from the sidebar destroys nothing, it is hidden until restored or purged
// (SessionInfo.Trashed says which, and since when).
const EventTrash EventType = "trash"

// Trash is the payload of EventTrash.
type Trash struct {
	// Trashed: true when moved to the trash, false when restored.
	Trashed bool `json:"trashed"`
}

// FoldersKey is the small JSON record listing the sidebar's folders, in the user's order.
const FoldersKey = "desk/folders"

// InTrash reports whether the conversation was deleted (and not restored).
func (i SessionInfo) InTrash() bool { return !i.Trashed.IsZero() }

// TrashedBefore reports whether the conversation went to the trash before cutoff (purge).
func (i SessionInfo) TrashedBefore(cutoff time.Time) bool {
	return i.InTrash() && i.Trashed.Before(cutoff)
}
