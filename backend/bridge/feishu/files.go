package feishu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"
	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"

	"github.com/tofu-research/tofu/backend/bridge"
)

// A user's file, image, voice note (audio) or video (media) arrives as a message whose content
// names the resource by key ({"file_key", "file_name"}, {"image_key"}, …); the bot downloads
// it through im/v1/messages/:message_id/resources/:file_key (type=image for images, file for
// the rest; scope im:resource) with the tenant token, only once the bridge asks (its sender
// allowed). /file uploads through im/v1/files (file_type stream) or im/v1/images (image_type
// message) and sends a message of msg_type file or image with the key.

// resource is what a message's content says of its file.
type resource struct {
	FileKey  string `json:"file_key"`
	ImageKey string `json:"image_key"`
	FileName string `json:"file_name"`
}

// files are the files a message of kind carries (none for text and the rest).
func (p *Platform) files(messageID, kind, content string) []bridge.File {
	var r resource
	if messageID == "" || json.Unmarshal([]byte(content), &r) != nil {
		return nil
	}
	key, typ, name := r.FileKey, "file", r.FileName
	switch kind {
	case "file", "media":
	case "audio":
		if name == "" {
			name = "voice.opus" // Feishu's voice notes are Opus
		}
	case "image":
		key, typ, name = r.ImageKey, "image", "image.png"
	default:
		return nil
	}
	if key == "" {
		return nil
	}
	if name == "" {
		name = key
	}
	return []bridge.File{{Name: name, Fetch: func(ctx context.Context, limit int) ([]byte, error) {
		return p.download(ctx, messageID, key, typ, limit)
	}}}
}

// download reads a message's resource, refusing one past limit bytes: by its Content-Length
// before reading, or once more than limit bytes have come.
func (p *Platform) download(ctx context.Context, messageID, key, typ string, limit int) ([]byte, error) {
	resp, err := p.api.Im.V1.MessageResource.Get(context.WithValue(ctx, limitKey{}, limit),
		larkim.NewGetMessageResourceReqBuilder().MessageId(messageID).FileKey(key).Type(typ).Build())
	if err != nil {
		var big *tooLarge
		if errors.As(err, &big) {
			return nil, big
		}
		return nil, fmt.Errorf("feishu: download: %w", err)
	}
	if err := failure("download", resp.ApiResp, resp.Code, resp.Msg); err != nil {
		return nil, err
	}
	if resp.File == nil {
		return nil, errors.New("feishu: download: the API sent no file")
	}
	b, err := io.ReadAll(resp.File)
	if err == nil && len(b) > limit {
		return nil, &tooLarge{size: int64(len(b)), limit: limit}
	}
	return b, err
}

// limitKey carries a download's limit in its request's context, for the transport.
type limitKey struct{}

// tooLarge is a download past its limit (size 0: not said before reading).
type tooLarge struct {
	size  int64
	limit int
}

func (e *tooLarge) Error() string {
	if e.size > 0 {
		return fmt.Sprintf("too large (%d MB; the limit is %d MB)", e.size>>20, e.limit>>20)
	}
	return fmt.Sprintf("too large (the limit is %d MB)", e.limit>>20)
}

// bounded is the API client's transport: a response to a request whose context holds a limit
// is refused when its Content-Length is past it, and stops being read past it.
type bounded struct{ next http.RoundTripper }

func (t bounded) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	limit, ok := r.Context().Value(limitKey{}).(int)
	if err != nil || !ok || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	if resp.ContentLength > int64(limit) {
		_ = resp.Body.Close()
		return nil, &tooLarge{size: resp.ContentLength, limit: limit}
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: int64(limit), limit: limit}
	return resp, nil
}

// cappedBody fails a read that goes past its limit.
type cappedBody struct {
	io.ReadCloser
	left  int64
	limit int
}

func (c *cappedBody) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, &tooLarge{limit: c.limit}
	}
	return n, err
}

// withBound is client with its transport bounded (the SDK reads a response whole).
func withBound(client *http.Client) *http.Client {
	c := *client
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = bounded{next: next}
	return &c
}

// imageExts are what /file sends as an image (im/v1/images takes these up to 10 MB).
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true}

const maxImageBytes = 10 << 20

// SendFile uploads data as name and sends it into chat (its thread, in a group) as a file
// message, or an image message for a picture; it returns the message_id.
func (p *Platform) SendFile(ctx context.Context, chat, name string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", errors.New("feishu: an empty file cannot be uploaded")
	}
	kind, field, op := larkim.MsgTypeFile, "file_key", "file upload"
	var key *string
	var resp *larkcore.ApiResp
	var code int
	var msg string
	var err error
	if imageExts[strings.ToLower(filepath.Ext(name))] && len(data) <= maxImageBytes {
		kind, field, op = larkim.MsgTypeImage, "image_key", "image upload"
		var r *larkim.CreateImageResp
		r, err = p.api.Im.V1.Image.Create(ctx, larkim.NewCreateImageReqBuilder().Body(larkim.NewCreateImageReqBodyBuilder().
			ImageType(larkim.CreateImageImageTypeMessage).Image(bytes.NewReader(data)).Build()).Build())
		if err == nil {
			resp, code, msg = r.ApiResp, r.Code, r.Msg
			if r.Data != nil {
				key = r.Data.ImageKey
			}
		}
	} else {
		var r *larkim.CreateFileResp
		r, err = p.api.Im.V1.File.Create(ctx, larkim.NewCreateFileReqBuilder().Body(larkim.NewCreateFileReqBodyBuilder().
			FileType(larkim.CreateFileFileTypeStream).FileName(name).File(bytes.NewReader(data)).Build()).Build())
		if err == nil {
			resp, code, msg = r.ApiResp, r.Code, r.Msg
			if r.Data != nil {
				key = r.Data.FileKey
			}
		}
	}
	if err != nil {
		return "", fmt.Errorf("feishu: %s: %w", op, err)
	}
	if err := failure(op, resp, code, msg); err != nil {
		return "", err
	}
	if str(key) == "" {
		return "", fmt.Errorf("feishu: %s: the API sent no %s", op, field)
	}
	content, _ := json.Marshal(map[string]string{field: *key})
	return p.post(ctx, chat, kind, string(content), "")
}
