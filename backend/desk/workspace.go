package desk

import (
	"context"
	"errors"
	"os"
	"slices"
	"time"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/coding"
)

// A session with a workspace is an agent session: its turns run the agent loop with the
// default toolset, the approval service, and approvals answered in the UI (backend/session).

// ErrNoPicker is ChooseWorkspace's answer where there is no native dialog (`tofu serve`).
var ErrNoPicker = errors.New("there is no folder dialog in the browser: type the workspace path instead")

// ChooseWorkspace opens the native folder dialog and returns the chosen directory, or "" when
// the user cancelled. It does not change any session: pass the answer to SetWorkspace.
func (s *Desk) ChooseWorkspace() (string, error) {
	p := s.dialogs()
	if p == nil {
		return "", ErrNoPicker
	}
	home, _ := os.UserHomeDir()
	return p.ChooseDirectory("Choose the workspace folder", home)
}

// SetWorkspace makes dir the session's workspace: its turns then run the coding agent with
// tools in that directory. dir must be an existing directory ("~" is the home directory); it is
// stored absolute. An empty dir clears the workspace (plain chat again).
func (s *Desk) SetWorkspace(sessionID, dir string) error {
	return s.set(s.runner.SetWorkspace(sessionID, dir))
}

// SetMode sets how the session's agent turns run: "chat" (the tool loop) or "autonomous"
// (planner → worker → critic with a verification gate). It matters once the session has a
// workspace. Refused while a turn runs, and autonomous for a paper's sessions.
func (s *Desk) SetMode(sessionID, mode string) error {
	return s.set(s.runner.SetMode(sessionID, mode))
}

// SetRecall turns memory recall on or off for the session's turns (the settings' switch, when
// off, stops it everywhere). Refused while a turn runs.
func (s *Desk) SetRecall(sessionID string, on bool) error {
	return s.set(s.runner.SetRecall(sessionID, on))
}

// SetThinking sets the session's reasoning effort (off, low, medium or high; "" follows the
// settings), sent with each of its model requests. Refused while a turn runs.
func (s *Desk) SetThinking(sessionID, level string) error {
	return s.set(s.runner.SetThinking(sessionID, level))
}

// SetTranslate turns translate-then-reason on or off for the session: a message not in
// English is translated into English (the translation model of the settings) before the
// model reasons, and the reply back into the user's language. Refused while a turn runs.
func (s *Desk) SetTranslate(sessionID string, on bool) error {
	return s.set(s.runner.SetTranslate(sessionID, on))
}

// set announces the sessions once a setter (session.Runner's) has changed one.
func (s *Desk) set(err error) error {
	if err != nil {
		return err
	}
	s.announce()
	return nil
}

// MaxMentionFiles bounds the list the composer's @file completion ranks: a checkout with more
// files is listed up to here (the walk is lexical; the user types more of the path).
const MaxMentionFiles = 20_000

// WorkspaceFiles lists the files of the session's workspace the composer offers after "@":
// slash paths relative to it, hidden and .gitignored files left out, as find_files walks.
func (s *Desk) WorkspaceFiles(sessionID string) ([]string, error) {
	ws, err := s.workspaceOf(sessionID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	paths, _, err := coding.MentionFiles(ctx, ws, MaxMentionFiles)
	return paths, err
}

// ErrNoWorkspace is the answer about a workspace's files in a conversation that has none.
var ErrNoWorkspace = errors.New("this conversation has no workspace: choose a folder to mention its files")

func (s *Desk) workspaceOf(sessionID string) (string, error) {
	info, err := s.store.Session(sessionID)
	if err != nil {
		return "", err
	}
	if info.Workspace == "" {
		return "", ErrNoWorkspace
	}
	return info.Workspace, nil
}

// Clear starts a new, empty conversation with this one's settings (the composer's /clear):
// its model, workspace, mode, reasoning effort, switches, tool families and folder. Grants
// given with "Allow for this session" are not carried over: they were given for that one.
func (s *Desk) Clear(id string) (store.SessionInfo, error) {
	src, err := s.store.Session(id)
	if err != nil {
		return store.SessionInfo{}, err
	}
	if src.Paper != "" || src.Parent != "" {
		return store.SessionInfo{}, errors.New("/clear is for conversations, not a paper's or a sub-agent's session")
	}
	info, _, err := s.store.CreateSessionWith("", func(i *store.SessionInfo) {
		i.Workspace, i.Mode, i.Model, i.Folder, i.Thinking = src.Workspace, src.Mode, src.Model, src.Folder, src.Thinking
		i.Translate, i.RecallOff, i.ToolsOff, i.ToolsOn = src.Translate, src.RecallOff, slices.Clone(src.ToolsOff), slices.Clone(src.ToolsOn)
	})
	if err != nil {
		return store.SessionInfo{}, err
	}
	s.announce()
	return info, nil
}
