package store

// Checkpoints: every file an agent's call changes is recorded with its content before and
// after (blobs, content-addressed: CheckpointBlobKey), on the call's tool_result; "undo
// changes since this message" restores them and records what it did as a checkpoint_restore
// event, itself a set of changes (backend/tools/checkpoint, docs/CHECKPOINTS.md).

// EventCheckpointRestore (CheckpointRestore) records an undo of the files changed since an
// event: the files as they were before it, written back.
const EventCheckpointRestore EventType = "checkpoint_restore"

// FileChange is one file changed by a call (or by a restore): its path relative to the
// workspace, and the sha256 of its content before and after ("" where it did not exist). The
// contents are blobs under CheckpointBlobKey(hash).
type FileChange struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Mode   uint32 `json:"mode,omitempty"` // permission bits before (after, for a file created)
	// By says how the change was seen: "tool" (a write or edit the call declared) or "git"
	// (a command's effect, from the workspace's git status before and after).
	By string `json:"by,omitempty"`
}

// CheckpointRestore is an undo of the changes after event Since: the files it wrote back.
type CheckpointRestore struct {
	Since uint64       `json:"since"`
	Files []FileChange `json:"files"`
}

// CheckpointBlobKey is the blob key of a file content recorded by a checkpoint.
func CheckpointBlobKey(sha256hex string) string { return "ckpt/" + sha256hex }
