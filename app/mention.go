package app

import (
	"context"
	"errors"
	"time"

	"github.com/tofu-research/tofu/backend/attach"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/coding"
)

// MaxMentionFiles bounds the list the composer's @file completion ranks: a checkout with more
// files is listed up to here (the walk is lexical; the user types more of the path).
const MaxMentionFiles = 20_000

// WorkspaceFiles lists the files of the session's workspace the composer offers after "@":
// slash paths relative to it, hidden and .gitignored files left out, as find_files walks.
func (s *SessionService) WorkspaceFiles(sessionID string) ([]string, error) {
	ws, err := s.workspaceOf(sessionID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	paths, _, err := coding.MentionFiles(ctx, ws, MaxMentionFiles)
	return paths, err
}

// AttachWorkspaceFile reads a file of the session's workspace the user @-mentioned as an
// attachment of the next message (SendAttached): read and counted as a picked file is, named
// by its path in the workspace. Only what WorkspaceFiles lists can be read.
func (c *ChatService) AttachWorkspaceFile(sessionID, rel string) (store.Attachment, error) {
	info, err := c.store.Session(sessionID)
	if err != nil {
		return store.Attachment{}, err
	}
	if info.Workspace == "" {
		return store.Attachment{}, errNoWorkspace
	}
	data, err := coding.MentionedFile(info.Workspace, rel)
	if err != nil {
		return store.Attachment{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := attach.Read(ctx, c.store, rel, data)
	if err != nil {
		return store.Attachment{}, err
	}
	a.Name, a.URI = rel, rel
	return a, nil
}

var errNoWorkspace = errors.New("this conversation has no workspace: choose a folder to mention its files")

func (s *SessionService) workspaceOf(sessionID string) (string, error) {
	info, err := s.store.Session(sessionID)
	if err != nil {
		return "", err
	}
	if info.Workspace == "" {
		return "", errNoWorkspace
	}
	return info.Workspace, nil
}
