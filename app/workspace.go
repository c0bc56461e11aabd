package app

import (
	"errors"
	"os"
)

// A session with a workspace is an agent session: its turns run the agent loop with the
// default toolset, the approval service, and approvals answered in the UI (backend/session).

// Dialogs are the native file dialogs (the Wails window provides them). Each returns "" when
// the user cancels.
type Dialogs interface {
	ChooseDirectory(title, defaultDir string) (string, error)
	ChooseSaveFile(title, defaultName string) (string, error)
}

// ErrNoPicker is ChooseWorkspace's answer where there is no native dialog (`tofu serve`).
var ErrNoPicker = errors.New("there is no folder dialog in the browser: type the workspace path instead")

// SetDialogs gives the services the window's native dialogs (workspace folder, export file).
func (a *App) SetDialogs(d Dialogs) {
	a.Sessions.mu.Lock()
	a.Sessions.picker = d
	a.Sessions.mu.Unlock()
	a.Papers.mu.Lock()
	a.Papers.dialogs = d
	a.Papers.mu.Unlock()
}

// ChooseWorkspace opens the native folder dialog and returns the chosen directory, or "" when
// the user cancelled. It does not change any session: pass the answer to SetWorkspace.
func (s *SessionService) ChooseWorkspace() (string, error) {
	s.mu.Lock()
	p := s.picker
	s.mu.Unlock()
	if p == nil {
		return "", ErrNoPicker
	}
	home, _ := os.UserHomeDir()
	return p.ChooseDirectory("Choose the workspace folder", home)
}

// SetWorkspace makes dir the session's workspace: its turns then run the coding agent with
// tools in that directory. dir must be an existing directory ("~" is the home directory); it is
// stored absolute. An empty dir clears the workspace (plain chat again).
func (s *SessionService) SetWorkspace(sessionID, dir string) error {
	return s.set(s.runner.SetWorkspace(sessionID, dir))
}

// SetMode sets how the session's agent turns run: "chat" (the tool loop) or "autonomous"
// (planner → worker → critic with a verification gate). It matters once the session has a
// workspace. Refused while a turn runs, and autonomous for a paper's sessions.
func (s *SessionService) SetMode(sessionID, mode string) error {
	return s.set(s.runner.SetMode(sessionID, mode))
}

// SetRecall turns memory recall on or off for the session's turns (the settings' switch, when
// off, stops it everywhere). Refused while a turn runs.
func (s *SessionService) SetRecall(sessionID string, on bool) error {
	return s.set(s.runner.SetRecall(sessionID, on))
}

// SetThinking sets the session's reasoning effort (off, low, medium or high; "" follows the
// settings), sent with each of its model requests. Refused while a turn runs.
func (s *SessionService) SetThinking(sessionID, level string) error {
	return s.set(s.runner.SetThinking(sessionID, level))
}

// SetTranslate turns translate-then-reason on or off for the session: a message not in
// English is translated into English (the translation model of the settings) before the
// model reasons, and the reply back into the user's language. Refused while a turn runs.
func (s *SessionService) SetTranslate(sessionID string, on bool) error {
	return s.set(s.runner.SetTranslate(sessionID, on))
}

// set announces the sessions once a setter (session.Runner's) has changed one.
func (s *SessionService) set(err error) error {
	if err != nil {
		return err
	}
	s.announce()
	return nil
}
