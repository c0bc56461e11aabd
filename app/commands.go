package app

import (
	"context"

	"github.com/tofu-research/tofu/backend/session"
)

// The composer's own commands that need Go: /compact, and /clear (SessionService.Clear;
// /model and /cost are the window's: the model picker and the token report).

// Compact summarizes the conversation's earlier turns now (the composer's /compact), with
// instruction (may be empty) telling the summariser what to keep; the latest exchange stays
// whole. It runs like a turn (Stop stops it, the session is busy meanwhile) and ends in a
// compaction event with its notice, or a notice saying why nothing was compacted.
func (c *ChatService) Compact(sessionID, instruction, model string) error {
	_, err := c.startTurn(context.Background(), session.Request{Session: sessionID, Model: model, Compact: &instruction})
	return err
}
