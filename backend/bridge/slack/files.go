package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/tofu-research/tofu/backend/bridge"
)

// errTooLarge stops a download past its limit.
var errTooLarge = errors.New("too large")

// capped keeps what is written up to limit bytes and refuses more.
type capped struct {
	bytes.Buffer
	limit int
}

func (c *capped) Write(b []byte) (int, error) {
	if c.Len()+len(b) > c.limit {
		return 0, errTooLarge
	}
	return c.Buffer.Write(b)
}

// files are the files of a message (a file_share), each downloaded when the bridge asks, with
// the bot token (its url_private_download; scope files:read).
func (p *Platform) files(fs []slack.File) []bridge.File {
	var out []bridge.File
	for _, f := range fs {
		name := f.Name
		if name == "" {
			name = f.Title
		}
		if name == "" {
			name = f.ID
		}
		url := f.URLPrivateDownload
		if url == "" {
			url = f.URLPrivate
		}
		out = append(out, bridge.File{Name: name, Size: f.Size, Fetch: func(ctx context.Context, limit int) ([]byte, error) {
			if url == "" {
				return nil, errors.New("Slack gave no address to download it from (the app needs the files:read scope)")
			}
			data := capped{limit: limit}
			if err := p.api.GetFileContext(ctx, url, &data); err != nil {
				if errors.Is(err, errTooLarge) {
					return nil, fmt.Errorf("too large (the limit is %d MB)", limit>>20)
				}
				return nil, fmt.Errorf("slack: download: %w", err)
			}
			return data.Bytes(), nil
		}})
	}
	return out
}

// SendFile uploads data as name into the conversation (files.getUploadURLExternal, the upload,
// files.completeUploadExternal in its thread; scope files:write) and returns the file's id.
func (p *Platform) SendFile(ctx context.Context, chat, name string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", errors.New("slack: an empty file cannot be uploaded")
	}
	channel, thread := split(chat)
	f, err := p.api.UploadFileContext(ctx, slack.UploadFileParameters{Filename: name, Title: name, FileSize: len(data),
		Reader: bytes.NewReader(data), Channel: channel, ThreadTimestamp: thread})
	if err != nil {
		return "", wrap("files upload", err)
	}
	return f.ID, nil
}
