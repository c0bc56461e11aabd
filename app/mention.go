package app

import (
	"context"
	"time"

	"github.com/tofu-research/tofu/backend/attach"
	"github.com/tofu-research/tofu/backend/desk"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/coding"
)

// AttachWorkspaceFile reads a file of the session's workspace the user @-mentioned as an
// attachment of the next message (SendAttached): read and counted as a picked file is, named
// by its path in the workspace. Only what WorkspaceFiles lists can be read.
func (c *ChatService) AttachWorkspaceFile(sessionID, rel string) (store.Attachment, error) {
	info, err := c.store.Session(sessionID)
	if err != nil {
		return store.Attachment{}, err
	}
	if info.Workspace == "" {
		return store.Attachment{}, desk.ErrNoWorkspace
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
