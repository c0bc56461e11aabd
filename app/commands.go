package app

import (
	"context"
	"errors"
	"slices"

	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// The composer's own commands that need Go: /compact and /clear (/model and /cost are the
// window's: the model picker and the token report).

// Compact summarizes the conversation's earlier turns now (the composer's /compact), with
// instruction (may be empty) telling the summariser what to keep; the latest exchange stays
// whole. It runs like a turn (Stop stops it, the session is busy meanwhile) and ends in a
// compaction event with its notice, or a notice saying why nothing was compacted.
func (c *ChatService) Compact(sessionID, instruction, model string) error {
	_, err := c.startTurn(context.Background(), session.Request{Session: sessionID, Model: model, Compact: &instruction})
	return err
}

// Clear starts a new, empty conversation with this one's settings (the composer's /clear):
// its model, workspace, mode, reasoning effort, switches, tool families and folder. Grants
// given with "Allow for this session" are not carried over: they were given for that one.
func (s *SessionService) Clear(id string) (store.SessionInfo, error) {
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
