// Package checkpoint records the files an agent's calls change (their content before and after,
// as content-addressed blobs) and undoes them: "undo changes since this message" writes back
// what was there, refusing, with a diff, where a file changed since the agent wrote it.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// MaxFile is the largest file recorded: a bigger one's change is not undoable (the limit keeps
// a checkpoint from copying a database or a build artifact into Tofu's store on every write).
const MaxFile = 16 << 20

// Blobs is what checkpoints need of the store's blobs.
type Blobs interface {
	PutBlob(key string, r io.Reader) (int64, error)
	BlobSize(key string) (int64, error)
	BlobBytes(key string) ([]byte, error)
}

// Recorder records the changes of one workspace's calls.
type Recorder struct {
	Blobs     Blobs
	Workspace string // absolute
}

// state is a file's content at one moment: its hash ("" when it does not exist or is not a
// regular file), mode, and whether it could be recorded.
type state struct {
	hash string
	mode fs.FileMode
	ok   bool // a regular file within MaxFile, stored; or no file at all
}

// Before snapshots what call may change (the files its access declares writing; for a
// command, the workspace's git status) and returns the function that, after the call, says
// what changed. It never fails the call: a file it cannot record is left out.
func (r *Recorder) Before(ctx context.Context, call tools.Call, access []tools.Access) (after func() []store.FileChange) {
	root, err := filepath.EvalSymlinks(r.Workspace)
	if err != nil {
		return func() []store.FileChange { return nil }
	}
	written := map[string]state{}
	var snap *gitSnapshot
	for _, a := range access {
		switch a.Kind {
		case tools.AccessWrite:
			rel, ok := r.rel(root, a.Path)
			if ok {
				if _, seen := written[rel]; !seen {
					written[rel] = r.read(root, rel)
				}
			}
		case tools.AccessExec:
			if snap == nil {
				snap = r.snapshotGit(ctx, root)
			}
		}
	}
	// The call may have been stopped: what it changed until then is recorded all the same.
	ctx = context.WithoutCancel(ctx)
	return func() []store.FileChange {
		var out []store.FileChange
		for rel, before := range written {
			if c, ok := r.change(root, rel, before, "tool"); ok {
				out = append(out, c)
			}
		}
		if snap != nil {
			out = append(out, snap.changes(ctx, r, root, written)...)
		}
		sortChanges(out)
		return out
	}
}

// rel is path (as a tool resolves it) relative to the workspace root, when it lies inside.
func (r *Recorder) rel(root, path string) (string, bool) {
	abs := tools.RealPath(tools.AbsPath(r.Workspace, path))
	if !tools.Within(root, abs) || abs == root {
		return "", false
	}
	rel, err := filepath.Rel(root, abs)
	return filepath.ToSlash(rel), err == nil
}

// read records the file rel as it is now.
func (r *Recorder) read(root, rel string) state {
	fi, err := os.Lstat(filepath.Join(root, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return state{ok: true}
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxFile {
		return state{}
	}
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return state{}
	}
	hash, err := r.put(data)
	if err != nil {
		return state{}
	}
	return state{hash: hash, mode: fi.Mode().Perm(), ok: true}
}

// change compares rel now with before; ok when it changed and both sides are recorded.
func (r *Recorder) change(root, rel string, before state, by string) (store.FileChange, bool) {
	if !before.ok {
		return store.FileChange{}, false
	}
	now := r.read(root, rel)
	if !now.ok || now.hash == before.hash {
		return store.FileChange{}, false
	}
	mode := before.mode
	if before.hash == "" {
		mode = now.mode
	}
	return store.FileChange{Path: rel, Before: before.hash, After: now.hash, Mode: uint32(mode), By: by}, true
}

// put stores data under its hash (once) and returns the hash.
func (r *Recorder) put(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if _, err := r.Blobs.BlobSize(store.CheckpointBlobKey(hash)); err == nil {
		return hash, nil
	}
	if _, err := r.Blobs.PutBlob(store.CheckpointBlobKey(hash), bytes.NewReader(data)); err != nil {
		return "", fmt.Errorf("store a checkpoint: %w", err)
	}
	return hash, nil
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
