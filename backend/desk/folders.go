package desk

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/store"
)

// The sidebar's conversation management: folders, pins, the trash (delete with undo),
// duplicates and references. Folders and pins live in each conversation's SessionInfo and
// the folder list in one small record; deleting moves a conversation to the trash (an event
// in its log and SessionInfo.Trashed) until it is restored or purged.

// TrashKeep is how long a conversation stays in the trash before the next start purges it.
const TrashKeep = 30 * 24 * time.Hour

// maxFolderName bounds a folder's name (a sidebar label).
const maxFolderName = 80

// Folders lists the sidebar's folders in the user's order.
func (s *Desk) Folders() ([]string, error) {
	var names []string
	if _, err := s.store.GetJSON(store.FoldersKey, &names); err != nil {
		return nil, err
	}
	if names == nil {
		names = []string{}
	}
	return names, nil
}

func cleanFolder(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("a folder needs a name")
	}
	if utf8.RuneCountInString(name) > maxFolderName {
		return "", fmt.Errorf("a folder's name is at most %d characters", maxFolderName)
	}
	return name, nil
}

// CreateFolder adds a folder at the end of the list.
func (s *Desk) CreateFolder(name string) error {
	name, err := cleanFolder(name)
	if err != nil {
		return err
	}
	names, err := s.Folders()
	if err != nil {
		return err
	}
	if slices.Contains(names, name) {
		return fmt.Errorf("there is already a folder called %q", name)
	}
	if err := s.store.PutJSON(store.FoldersKey, append(names, name)); err != nil {
		return err
	}
	s.announceFolders()
	return nil
}

// RenameFolder renames a folder and moves its conversations with it.
func (s *Desk) RenameFolder(from, to string) error {
	to, err := cleanFolder(to)
	if err != nil {
		return err
	}
	names, err := s.Folders()
	if err != nil {
		return err
	}
	i := slices.Index(names, from)
	if i < 0 {
		return fmt.Errorf("there is no folder called %q", from)
	}
	if from == to {
		return nil
	}
	if slices.Contains(names, to) {
		return fmt.Errorf("there is already a folder called %q", to)
	}
	names[i] = to
	if err := s.store.PutJSON(store.FoldersKey, names); err != nil {
		return err
	}
	if err := s.refile(from, to); err != nil {
		return err
	}
	s.announceFolders()
	s.announce()
	return nil
}

// DeleteFolder removes a folder; its conversations stay, out of any folder.
func (s *Desk) DeleteFolder(name string) error {
	names, err := s.Folders()
	if err != nil {
		return err
	}
	if !slices.Contains(names, name) {
		return fmt.Errorf("there is no folder called %q", name)
	}
	if err := s.store.PutJSON(store.FoldersKey, slices.DeleteFunc(names, func(n string) bool { return n == name })); err != nil {
		return err
	}
	if err := s.refile(name, ""); err != nil {
		return err
	}
	s.announceFolders()
	s.announce()
	return nil
}

// refile moves every conversation of folder from into folder to.
func (s *Desk) refile(from, to string) error {
	all, err := s.store.Sessions()
	if err != nil {
		return err
	}
	for _, info := range all {
		if info.Folder == from {
			if _, err := s.store.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Folder = to }); err != nil {
				return err
			}
		}
	}
	return nil
}

// Move puts a conversation into a folder ("" : out of any).
func (s *Desk) Move(id, folder string) error {
	if folder != "" {
		names, err := s.Folders()
		if err != nil {
			return err
		}
		if !slices.Contains(names, folder) {
			return fmt.Errorf("there is no folder called %q", folder)
		}
	}
	if _, err := s.store.UpdateSession(id, func(i *store.SessionInfo) { i.Folder = folder }); err != nil {
		return err
	}
	s.announce()
	return nil
}

// SetPinned pins a conversation to the top of the list, or unpins it.
func (s *Desk) SetPinned(id string, pinned bool) error {
	if _, err := s.store.UpdateSession(id, func(i *store.SessionInfo) { i.Pinned = pinned }); err != nil {
		return err
	}
	s.announce()
	return nil
}

// Trash deletes a conversation with undo: its reply is stopped, an EventTrash is logged, and
// it is hidden (List, Search) until Restore, or purged TrashKeep later. Its activity time is
// kept, so a restored conversation goes back where it was in the list.
func (s *Desk) Trash(id string) error {
	return s.setTrashed(id, true)
}

// Restore brings a conversation back from the trash.
func (s *Desk) Restore(id string) error {
	return s.setTrashed(id, false)
}

func (s *Desk) setTrashed(id string, trashed bool) error {
	info, err := s.store.Session(id)
	if err != nil {
		return err
	}
	if info.InTrash() == trashed {
		return nil
	}
	if trashed {
		s.runner.StopAndWait(id)
	}
	if _, err := s.store.Append(id, store.EventTrash, store.Trash{Trashed: trashed}); err != nil {
		return fmt.Errorf("record the deletion: %w", err)
	}
	if _, err := s.store.UpdateSession(id, func(i *store.SessionInfo) {
		i.Updated = info.Updated
		i.Trashed = time.Time{}
		if trashed {
			i.Trashed = time.Now().UTC()
		}
	}); err != nil {
		return err
	}
	if trashed {
		s.runner.Forget(id)
		if s.browser != nil {
			s.browser.CloseSession(id)
		}
	}
	s.announce()
	return nil
}

// PurgeTrash deletes for good the conversations trashed before cutoff (when the services start).
func PurgeTrash(st *store.Store, cutoff time.Time) error {
	all, err := st.Sessions()
	if err != nil {
		return err
	}
	for _, info := range all {
		if info.TrashedBefore(cutoff) {
			if err := st.DeleteSession(info.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("purge the deleted conversation %s: %w", info.ID, err)
			}
		}
	}
	return nil
}

// turnTail are the events that close a reply's turn after its message.
var turnTail = map[store.EventType]bool{
	store.EventUsage: true, store.EventModelCall: true, store.EventTurnEnd: true, store.EventNotice: true,
	store.EventContextState: true, store.EventMessageTranslation: true,
}

// Duplicate makes a new conversation from this one's log up to its event upTo (0: all of it;
// a reply's usage and turn end come with it), as the log was then (in a branched log, the
// version that was current at that point),
// linked to its source (SessionInfo.ForkOf, ForkSeq), with its settings (workspace, mode,
// switches, folder). The copy shares nothing with the source from then on.
func (s *Desk) Duplicate(id string, upTo uint64) (store.SessionInfo, error) {
	src, err := s.store.Session(id)
	if err != nil {
		return store.SessionInfo{}, err
	}
	evs, err := s.store.Events(id)
	if err != nil {
		return store.SessionInfo{}, err
	}
	if upTo == 0 || upTo > uint64(len(evs)) {
		upTo = uint64(len(evs))
	}
	// A reply's turn goes with it: its usage, model calls and end follow the message.
	for upTo < uint64(len(evs)) && turnTail[evs[upTo].Type] {
		upTo++
	}
	entries := make([]store.Entry, 0, upTo)
	for _, ev := range evs {
		if ev.Seq > upTo {
			break
		}
		// Seqs must stay what they were (events refer to others by seq): a trash event is
		// copied as it is, harmless in a live conversation's log.
		entries = append(entries, store.Entry{Type: ev.Type, Payload: json.RawMessage(ev.Data)})
	}
	info, err := s.store.CreateSession("Copy of " + src.Title)
	if err != nil {
		return store.SessionInfo{}, err
	}
	if len(entries) > 0 {
		if _, err := s.store.AppendBatch(info.ID, entries...); err != nil {
			return store.SessionInfo{}, fmt.Errorf("copy the conversation: %w", err)
		}
	}
	info, err = s.store.UpdateSession(info.ID, func(i *store.SessionInfo) {
		i.Workspace, i.Mode, i.Model, i.Folder = src.Workspace, src.Mode, src.Model, src.Folder
		i.Translate, i.RecallOff, i.ToolsOff, i.ToolsOn = src.Translate, src.RecallOff, slices.Clone(src.ToolsOff), slices.Clone(src.ToolsOn)
		i.ForkOf, i.ForkSeq = id, upTo
	})
	if err != nil {
		return store.SessionInfo{}, err
	}
	s.announce()
	return info, nil
}

// FoldersTopic carries the folder list to the window when it changes.
const FoldersTopic = "folders"

func (s *Desk) announceFolders() {
	if names, err := s.Folders(); err == nil {
		s.emit(FoldersTopic, names)
	}
}
