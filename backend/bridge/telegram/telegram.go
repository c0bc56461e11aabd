// Package telegram is the bridge's Telegram platform: a small client of the Bot API's
// documented JSON methods (getUpdates long polling, so no public address; sendMessage,
// editMessageText, inline buttons for approvals).
package telegram

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/bridge"
)

// Options say which bot the bridge speaks as.
type Options struct {
	Token string // the bot's token from @BotFather (kept in the keyring)
	// API is the Bot API's address (""): https://api.telegram.org; a local Bot API server or
	// the tests' set another).
	API string
	// PollTimeout is how long one getUpdates waits for news (0: 30 s).
	PollTimeout time.Duration
	Client      *http.Client // nil: one with a timeout above PollTimeout
}

// Platform is a Telegram bot as a bridge platform.
type Platform struct {
	o    Options
	self string
}

// New returns the platform for o; nothing is sent until Check, Listen or Send.
func New(o Options) (*Platform, error) {
	if o.Token == "" || strings.ContainsAny(o.Token, "/ ") {
		return nil, errors.New("telegram: the bot token is missing or malformed (it looks like 123456:ABC…)")
	}
	if o.API == "" {
		o.API = "https://api.telegram.org"
	}
	if o.PollTimeout <= 0 {
		o.PollTimeout = 30 * time.Second
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: o.PollTimeout + 15*time.Second}
	}
	return &Platform{o: o}, nil
}

// Name is "telegram".
func (p *Platform) Name() string { return "telegram" }

// Self is the bot's user id (known after Check or Listen).
func (p *Platform) Self() string { return p.self }

// apiResponse is the Bot API's envelope of every answer.
type apiResponse struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result,omitempty"`
	ErrorCode   int             `json:"error_code,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  *struct {
		RetryAfter int `json:"retry_after,omitempty"`
	} `json:"parameters,omitempty"`
}

// Error is the Bot API's refusal of a call.
type Error struct {
	Method      string
	Code        int
	Description string
}

func (e *Error) Error() string {
	return fmt.Sprintf("telegram: %s: %s (%d)", e.Method, e.Description, e.Code)
}

// call posts params to the method and decodes its result into out. A 429 is a
// bridge.RateLimited with the wait the API asked for.
func (p *Platform) call(ctx context.Context, method string, params, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return p.post(ctx, method, "application/json", bytes.NewReader(body), out)
}

// post sends body of contentType to the method and decodes its result into out.
func (p *Platform) post(ctx context.Context, method, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.o.API+"/bot"+p.o.Token+"/"+method, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := p.o.Client.Do(req)
	if err != nil {
		// The URL holds the token: the error says the method only.
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			err = ue.Unwrap()
		}
		return fmt.Errorf("telegram: %s: %w", method, err)
	}
	defer resp.Body.Close()
	var r apiResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("telegram: %s: unreadable answer (HTTP %d): %w", method, resp.StatusCode, err)
	}
	if !r.OK {
		e := &Error{Method: method, Code: r.ErrorCode, Description: r.Description}
		if r.ErrorCode == http.StatusTooManyRequests {
			after := time.Second
			if r.Parameters != nil && r.Parameters.RetryAfter > 0 {
				after = time.Duration(r.Parameters.RetryAfter) * time.Second
			}
			return &bridge.RateLimited{After: after, Err: e}
		}
		return e
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result, out)
}

type user struct {
	ID       int64  `json:"id"`
	IsBot    bool   `json:"is_bot"`
	Username string `json:"username,omitempty"`
}

type message struct {
	MessageID int64 `json:"message_id"`
	From      *user `json:"from,omitempty"`
	Chat      struct {
		ID int64 `json:"id"`
	} `json:"chat"`
	Date int64  `json:"date"`
	Text string `json:"text,omitempty"`
	// A document, photo (its sizes, the largest last), voice note or audio, with its caption.
	Caption  string    `json:"caption,omitempty"`
	Document *fileRef  `json:"document,omitempty"`
	Photo    []fileRef `json:"photo,omitempty"`
	Voice    *fileRef  `json:"voice,omitempty"`
	Audio    *fileRef  `json:"audio,omitempty"`
}

type update struct {
	UpdateID      int64    `json:"update_id"`
	Message       *message `json:"message,omitempty"`
	CallbackQuery *struct {
		ID      string   `json:"id"`
		From    user     `json:"from"`
		Message *message `json:"message,omitempty"`
		Data    string   `json:"data,omitempty"`
	} `json:"callback_query,omitempty"`
}

// Check asks the API who the token belongs to (tofu bridge test).
func (p *Platform) Check(ctx context.Context) (string, error) {
	var me user
	if err := p.call(ctx, "getMe", struct{}{}, &me); err != nil {
		return "", err
	}
	p.self = strconv.FormatInt(me.ID, 10)
	if me.Username != "" {
		return "@" + me.Username, nil
	}
	return p.self, nil
}

// Listen long-polls getUpdates from cursor (the next update_id; "": every update the API
// still holds, which it keeps for a day: messages sent while Tofu was closed are answered).
// A 429 waits as long as the API says; any other failure returns (the bridge reconnects).
func (p *Platform) Listen(ctx context.Context, cursor string, deliver func(bridge.Incoming) error) error {
	if _, err := p.Check(ctx); err != nil {
		return err
	}
	offset, _ := strconv.ParseInt(cursor, 10, 64)
	for polls := 0; ; polls++ {
		// The first poll answers at once, so Settings says "connected" as soon as the API
		// answered one; the next ones wait for news.
		wait := int(p.o.PollTimeout.Seconds())
		if polls == 0 {
			wait = 0
		}
		var ups []update
		err := p.call(ctx, "getUpdates", map[string]any{"offset": offset, "timeout": wait,
			"allowed_updates": []string{"message", "callback_query"}}, &ups)
		var limited *bridge.RateLimited
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &limited):
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(limited.After):
			}
			continue
		case err != nil:
			return err
		case polls == 0:
			// Connected: the bridge says so in Settings.
			if err := deliver(bridge.Incoming{}); err != nil {
				return err
			}
		}
		for _, u := range ups {
			offset = u.UpdateID + 1
			m, ok := p.incoming(ctx, u)
			m.Cursor = strconv.FormatInt(offset, 10)
			if !ok {
				m = bridge.Incoming{Cursor: m.Cursor}
			}
			if err := deliver(m); err != nil {
				return err
			}
		}
	}
}

// incoming reads an update as a message or a button press.
func (p *Platform) incoming(ctx context.Context, u update) (bridge.Incoming, bool) {
	id := "u" + strconv.FormatInt(u.UpdateID, 10)
	switch {
	case u.Message != nil && u.Message.From != nil && (u.Message.Text != "" || len(u.Message.refs()) > 0):
		m := u.Message
		in := bridge.Incoming{ID: id, Chat: strconv.FormatInt(m.Chat.ID, 10), User: strconv.FormatInt(m.From.ID, 10),
			Text: cmp.Or(m.Text, m.Caption), Time: time.Unix(m.Date, 0)}
		for _, f := range m.refs() {
			in.Files = append(in.Files, p.file(f))
		}
		return in, true
	case u.CallbackQuery != nil && u.CallbackQuery.Message != nil:
		q := u.CallbackQuery
		// The spinner on the button stops; a failure here changes nothing of the answer.
		_ = p.call(ctx, "answerCallbackQuery", map[string]any{"callback_query_id": q.ID}, nil)
		press, call, _ := strings.Cut(q.Data, ":")
		return bridge.Incoming{ID: id, Chat: strconv.FormatInt(q.Message.Chat.ID, 10), User: strconv.FormatInt(q.From.ID, 10),
			Press: press, Call: call}, press == "yes" || press == "no"
	}
	return bridge.Incoming{}, false
}

// maxText is the Bot API's limit on a message's text, in characters.
const maxText = 4096

// fit cuts text to the API's limit, saying so.
func fit(text string) string {
	r := []rune(text)
	if len(r) <= maxText {
		return text
	}
	return string(r[:maxText-40]) + "\n… (cut: the whole answer is in Tofu)"
}

// Send posts a message, with inline buttons when m has some.
func (p *Platform) Send(ctx context.Context, chat string, m bridge.Outgoing) (string, error) {
	params := map[string]any{"chat_id": chat, "text": fit(m.Text)}
	if len(m.Buttons) > 0 {
		var row []map[string]string
		for _, b := range m.Buttons {
			row = append(row, map[string]string{"text": b.Label, "callback_data": b.Press + ":" + b.Call})
		}
		params["reply_markup"] = map[string]any{"inline_keyboard": [][]map[string]string{row}}
	}
	var sent message
	if err := p.call(ctx, "sendMessage", params, &sent); err != nil {
		return "", err
	}
	return strconv.FormatInt(sent.MessageID, 10), nil
}

// Edit replaces a message's text; the same text again is not an error.
func (p *Platform) Edit(ctx context.Context, chat, msgID, text string) error {
	n, err := strconv.ParseInt(msgID, 10, 64)
	if err != nil {
		return fmt.Errorf("telegram: message id %q is not a number", msgID)
	}
	err = p.call(ctx, "editMessageText", map[string]any{"chat_id": chat, "message_id": n, "text": fit(text)}, nil)
	var e *Error
	if errors.As(err, &e) && strings.Contains(e.Description, "message is not modified") {
		return nil
	}
	return err
}

// fileRef is a file a message carries (Document, PhotoSize, Voice, Audio as the Bot API
// documents them): file_id to ask getFile for it, file_size when known.
type fileRef struct {
	FileID   string `json:"file_id"`
	FileName string `json:"file_name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	FileSize int64  `json:"file_size,omitempty"`
}

// refs are the files of a message: a document, the largest size of a photo, a voice note or
// an audio file.
func (m *message) refs() []fileRef {
	var out []fileRef
	// Photos and voice notes come without a name: Telegram sends photos as JPEG, voice notes
	// as OGG/Opus.
	for _, f := range []struct {
		ref  *fileRef
		name string
	}{{m.Document, "file"}, {m.Voice, "voice.ogg"}, {m.Audio, "audio"}} {
		if f.ref != nil {
			r := *f.ref
			r.FileName = cmp.Or(r.FileName, f.name)
			out = append(out, r)
		}
	}
	if n := len(m.Photo); n > 0 {
		r := m.Photo[n-1]
		r.FileName = "photo.jpg"
		out = append(out, r)
	}
	return out
}

// file is a message's file for the bridge: fetched (getFile says its path, then GET
// /file/bot<token>/<path>) only when the bridge asks; the Bot API lets bots download up to
// 20 MB, as the bridge's own limit.
func (p *Platform) file(f fileRef) bridge.File {
	return bridge.File{Name: f.FileName, Size: int(f.FileSize), Fetch: func(ctx context.Context, limit int) ([]byte, error) {
		var file struct {
			FilePath string `json:"file_path"`
		}
		if err := p.call(ctx, "getFile", map[string]any{"file_id": f.FileID}, &file); err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.o.API+"/file/bot"+p.o.Token+"/"+file.FilePath, nil)
		if err != nil {
			return nil, errors.New("telegram: download: the file's path is not usable")
		}
		resp, err := p.o.Client.Do(req)
		if err != nil {
			return nil, errors.New("telegram: download failed") // the error's URL holds the token
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("telegram: download: HTTP %d", resp.StatusCode)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
		if err == nil && len(data) > limit {
			err = fmt.Errorf("too large (the limit is %d MB)", limit>>20)
		}
		return data, err
	}}
}

// SendFile sends data as a document named name (sendDocument, multipart/form-data as the Bot
// API takes an upload).
func (p *Platform) SendFile(ctx context.Context, chat, name string, data []byte) (string, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.WriteField("chat_id", chat); err != nil {
		return "", err
	}
	part, err := w.CreateFormFile("document", name)
	if err != nil {
		return "", err
	}
	if _, err := part.Write(data); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	var sent message
	if err := p.post(ctx, "sendDocument", w.FormDataContentType(), &body, &sent); err != nil {
		return "", err
	}
	return strconv.FormatInt(sent.MessageID, 10), nil
}
