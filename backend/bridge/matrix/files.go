package matrix

import (
	"context"
	"fmt"
	"net/http"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/tofu-research/tofu/backend/bridge"
)

// media is a file a message carries (m.file, m.image, m.audio, m.video): its mxc:// address
// and its size when the sender said it.
type media struct {
	uri  id.ContentURIString
	size int
}

// fileOf reads a file message: its file name and caption (a body other than the file name is
// the caption, as the spec's media captions have it).
func fileOf(msg *event.MessageEventContent) (name, caption string, m media, ok bool) {
	switch msg.MsgType {
	case event.MsgFile, event.MsgImage, event.MsgAudio, event.MsgVideo:
	default:
		return "", "", media{}, false
	}
	name = msg.FileName
	if name == "" {
		name = msg.Body
	} else if msg.Body != name {
		caption = msg.Body
	}
	m.uri = msg.URL
	if msg.Info != nil {
		m.size = msg.Info.Size
	}
	return name, caption, m, m.uri != ""
}

// file is a message's file for the bridge, downloaded from the homeserver only when the
// bridge asks.
func (p *Platform) file(name string, m media) bridge.File {
	return bridge.File{Name: name, Size: m.size, Fetch: func(ctx context.Context, limit int) ([]byte, error) {
		uri, err := m.uri.Parse()
		if err != nil {
			return nil, fmt.Errorf("matrix: the file's address %q is not an mxc:// URI", m.uri)
		}
		data, err := p.cli.DownloadBytes(ctx, uri)
		if err == nil && len(data) > limit {
			err = fmt.Errorf("too large (the limit is %d MB)", limit>>20)
		}
		return data, err
	}}
}

// SendFile uploads data to the homeserver's media store and posts it in the room as an
// m.file message named name.
func (p *Platform) SendFile(ctx context.Context, chat, name string, data []byte) (string, error) {
	mime := http.DetectContentType(data)
	up, err := p.cli.UploadBytes(ctx, data, mime)
	if err != nil {
		return "", wrap(err)
	}
	content := &event.MessageEventContent{MsgType: event.MsgFile, Body: name, FileName: name,
		URL: up.ContentURI.CUString(), Info: &event.FileInfo{MimeType: mime, Size: len(data)}}
	resp, err := p.cli.SendMessageEvent(ctx, id.RoomID(chat), event.EventMessage, content)
	if err != nil {
		return "", wrap(err)
	}
	return string(resp.EventID), nil
}
