package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/tofu-research/tofu/backend/attach"
	"github.com/tofu-research/tofu/backend/store"
)

// Attach reads a file the user picked, dropped or pasted into the composer (data: its bytes,
// base64 over the bridge) as an attachment for SendAttached: an image stays an image, a text,
// code, PDF or Office file becomes text the model reads, its tokens counted. The bytes are
// kept in the store at once; an attachment never sent leaves a blob that nothing names.
func (c *ChatService) Attach(name string, data []byte) (store.Attachment, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return attach.Read(ctx, c.store, name, data)
}

// AttachmentImage is an image attachment as a data: URL, for the transcript's thumbnail
// (the page's policy allows data: images; an <img> cannot send the API token).
func (c *ChatService) AttachmentImage(blob string) (string, error) {
	data, err := c.store.RequestPart(blob)
	if err != nil {
		return "", fmt.Errorf("read the image %s: %w", blob, err)
	}
	mime, ok := attach.ImageType(data)
	if !ok {
		return "", fmt.Errorf("%s is not an image", blob)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}

// CheckAttachments says why model ("": the settings' main model) cannot take attachments (an
// image for a model without vision, files past half its window), or nil. The composer asks
// before it sends, so a refused message never leaves it: the draft and its chips stay.
func (c *ChatService) CheckAttachments(model string, attachments []store.Attachment) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.runner.CheckAttachments(ctx, model, attachments)
}
