package feishutest

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// Files in and out, in Feishu's documented shapes: a user's file message (message_type file,
// content {"file_key", "file_name"}) or image (image, {"image_key"}); its resource served by
// GET im/v1/messages/:message_id/resources/:file_key?type=file|image (the body is the file,
// with its Content-Length; a key of another message, or the wrong type, is refused with code
// 234003 as Feishu does); uploads through POST im/v1/files (multipart: file_type, file_name,
// file) and im/v1/images (image_type, image), whose keys a file or image message then sends.

// Document is a file the bot sent into a chat (a file or image message).
type Document struct {
	Kind string // "file" or "image"
	Name string // the upload's file_name ("" for an image)
	Data []byte
}

// resource is a file a user sent: its content, or its size alone for a large one (served as
// zeros, with no Content-Length when streamed).
type resource struct {
	message, typ string
	data         []byte
	size         int
	streamed     bool
}

// Fetches is how many times a resource was downloaded.
func (s *Server) Fetches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches
}

// Documents are the files the bot sent into a conversation, in order.
func (s *Server) Documents(chat string) []Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Document
	for _, m := range s.sent {
		if m.Chat == chat && m.Document != nil {
			out = append(out, *m.Document)
		}
	}
	return out
}

// SayFile pushes a user's file message in their direct chat with the bot; it returns the
// message's id.
func (s *Server) SayFile(chat, user, name string, data []byte) string {
	return s.sayResource(chat, user, "file", name, resource{data: data, size: len(data)})
}

// SayLargeFile pushes a file message whose file is size bytes (zeros).
func (s *Server) SayLargeFile(chat, user, name string, size int) string {
	return s.sayResource(chat, user, "file", name, resource{size: size})
}

// SayStreamedFile pushes a file message whose file of size bytes (zeros) is served chunked,
// without a Content-Length: only reading it shows its size.
func (s *Server) SayStreamedFile(chat, user, name string, size int) string {
	return s.sayResource(chat, user, "file", name, resource{size: size, streamed: true})
}

// SayImage pushes a user's image message.
func (s *Server) SayImage(chat, user string, data []byte) string {
	return s.sayResource(chat, user, "image", "", resource{data: data, size: len(data)})
}

func (s *Server) sayResource(chat, user, kind, name string, res resource) string {
	id := s.userMessageID()
	key := "file_v3_00" + id
	content := map[string]string{"file_key": key, "file_name": name}
	if kind == "image" {
		key = "img_v3_00" + id
		content = map[string]string{"image_key": key}
	}
	s.mu.Lock()
	res.message, res.typ = id, kind
	s.resources[key] = &res
	s.mu.Unlock()
	b, _ := json.Marshal(content)
	s.say(id, chat, "p2p", "", user, kind, string(b), nil)
	return id
}

// resourceGet serves a message's resource.
func (s *Server) resourceGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	res := s.resources[r.PathValue("key")]
	if res != nil {
		s.fetches++
	}
	s.mu.Unlock()
	if res == nil || res.message != r.PathValue("id") || res.typ != r.URL.Query().Get("type") {
		envelope(w, http.StatusBadRequest, 234003, "File not in msg.", nil)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if !res.streamed {
		w.Header().Set("Content-Length", strconv.Itoa(res.size))
	}
	if res.data != nil {
		_, _ = w.Write(res.data)
		return
	}
	zeros := make([]byte, 64<<10)
	for left := res.size; left > 0; left -= len(zeros) {
		if _, err := w.Write(zeros[:min(left, len(zeros))]); err != nil {
			return
		}
	}
}

// upload takes a multipart upload (im/v1/files or im/v1/images) and answers its key.
func (s *Server) upload(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		field, keyName, typeField, want := "file", "file_key", "file_type", "stream"
		if kind == "image" {
			field, keyName, typeField, want = "image", "image_key", "image_type", "message"
		}
		if err := r.ParseMultipartForm(32 << 20); err != nil || r.FormValue(typeField) != want {
			envelope(w, http.StatusBadRequest, 234001, "Invalid request param.", nil)
			return
		}
		f, _, err := r.FormFile(field)
		if err != nil {
			envelope(w, http.StatusBadRequest, 234001, "Invalid request param.", nil)
			return
		}
		data, _ := io.ReadAll(f)
		_ = f.Close()
		if len(data) == 0 {
			envelope(w, http.StatusBadRequest, 234010, "File's size can't be 0.", nil)
			return
		}
		s.mu.Lock()
		s.nextID++
		key := "file_v3_00bot" + strconv.Itoa(s.nextID)
		if kind == "image" {
			key = "img_v3_00bot" + strconv.Itoa(s.nextID)
		}
		s.uploads[key] = &Document{Kind: kind, Name: r.FormValue("file_name"), Data: data}
		s.mu.Unlock()
		envelope(w, http.StatusOK, 0, "success", map[string]any{keyName: key})
	}
}

// uploaded is the upload a file or image message's content names (nil: none).
func (s *Server) uploaded(kind, content string) *Document {
	var c struct {
		FileKey  string `json:"file_key"`
		ImageKey string `json:"image_key"`
	}
	if json.Unmarshal([]byte(content), &c) != nil {
		return nil
	}
	key := c.FileKey
	if kind == "image" {
		key = c.ImageKey
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.uploads[key]; d != nil && d.Kind == kind {
		return d
	}
	return nil
}
