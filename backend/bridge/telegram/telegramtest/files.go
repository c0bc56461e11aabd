package telegramtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Document is a file the bot sent (sendDocument).
type Document struct {
	Chat string
	Name string
	Data []byte
}

// Files is the loopback Bot API with files: in front of a Server, it answers getFile, the
// download at /file/bot<token>/<path> and sendDocument's multipart upload, and passes the
// rest on. Its Server's URL is the front's.
type Files struct {
	*Server
	front *httptest.Server

	mu   sync.Mutex
	byID map[string]storedFile
	docs []Document
}

type storedFile struct {
	path string
	data []byte
}

// NewFiles starts a server with files; Close stops both.
func NewFiles() *Files {
	s := &Files{Server: New(), byID: map[string]storedFile{}}
	back, _ := url.Parse(s.Server.URL)
	proxy := httputil.NewSingleHostReverseProxy(back)
	proxy.FlushInterval = -1
	s.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.serveFiles(w, r) {
			proxy.ServeHTTP(w, r)
		}
	}))
	s.Server.URL = s.front.URL
	return s
}

// Close stops the front and the server.
func (s *Files) Close() {
	s.front.Close()
	s.Server.Close()
}

// SayFile queues a message from user in chat carrying a document named name (with caption).
func (s *Files) SayFile(chat, user int64, name string, data []byte, caption string) {
	id := s.keep("documents/"+name, data)
	s.sayWith(chat, user, map[string]any{"caption": caption,
		"document": map[string]any{"file_id": id, "file_unique_id": "u" + id, "file_name": name, "file_size": len(data)}})
}

// SayPhoto queues a photo from user in chat: as Telegram sends one, in sizes, the largest last,
// none with a name.
func (s *Files) SayPhoto(chat, user int64, data []byte, caption string) {
	small := s.keep("photos/file_0.jpg", data[:min(len(data), 16)])
	large := s.keep("photos/file_1.jpg", data)
	s.sayWith(chat, user, map[string]any{"caption": caption, "photo": []any{
		map[string]any{"file_id": small, "file_unique_id": "u" + small, "width": 90, "height": 90, "file_size": min(len(data), 16)},
		map[string]any{"file_id": large, "file_unique_id": "u" + large, "width": 1280, "height": 960, "file_size": len(data)},
	}})
}

// SayLargeFile queues a document whose size is past what a bot may download (nothing kept).
func (s *Files) SayLargeFile(chat, user int64, name string, size int) {
	s.sayWith(chat, user, map[string]any{"document": map[string]any{"file_id": "big", "file_unique_id": "ubig", "file_name": name, "file_size": size}})
}

// Documents are the files the bot sent into chat.
func (s *Files) Documents(chat string) []Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Document
	for _, d := range s.docs {
		if d.Chat == chat {
			out = append(out, d)
		}
	}
	return out
}

// keep stores a file users sent and returns its file_id.
func (s *Files) keep(path string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := "f" + strconv.Itoa(len(s.byID)+1)
	s.byID[id] = storedFile{path: path, data: data}
	return id
}

// sayWith queues a message from user in chat with fields added.
func (s *Files) sayWith(chat, user int64, fields map[string]any) {
	s.Server.mu.Lock()
	defer s.Server.mu.Unlock()
	msg := map[string]any{"message_id": s.nextMsg, "date": time.Now().Unix(),
		"from": map[string]any{"id": user, "is_bot": false, "first_name": "U" + strconv.FormatInt(user, 10)},
		"chat": map[string]any{"id": chat, "type": "private"}}
	for k, v := range fields {
		if v != "" {
			msg[k] = v
		}
	}
	s.nextMsg++
	s.push(map[string]any{"message": msg})
}

// serveFiles answers what is about files: getFile, the download at /file/bot<token>/<path>,
// and sendDocument's multipart upload. false: not a file request.
func (s *Files) serveFiles(w http.ResponseWriter, r *http.Request) bool {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"+Token+"/"); ok {
		s.mu.Lock()
		var data []byte
		found := false
		for _, f := range s.byID {
			if f.path == rest {
				data, found = f.data, true
			}
		}
		s.mu.Unlock()
		if !found {
			http.NotFound(w, r)
			return true
		}
		w.Write(data)
		return true
	}
	switch r.URL.Path {
	case "/bot" + Token + "/getFile":
		var params struct {
			FileID string `json:"file_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&params)
		s.mu.Lock()
		f, ok := s.byID[params.FileID]
		s.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: invalid file_id"})
			return true
		}
		ok200(w, map[string]any{"file_id": params.FileID, "file_unique_id": "u" + params.FileID, "file_size": len(f.data), "file_path": f.path})
		return true
	case "/bot" + Token + "/sendDocument":
		f, head, err := r.FormFile("document")
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: there is no document in the request"})
			return true
		}
		data, _ := io.ReadAll(f)
		s.Server.mu.Lock()
		id := s.nextMsg
		s.nextMsg++
		s.Server.mu.Unlock()
		s.mu.Lock()
		d := Document{Chat: r.FormValue("chat_id"), Name: head.Filename, Data: data}
		s.docs = append(s.docs, d)
		s.mu.Unlock()
		ok200(w, map[string]any{"message_id": id, "date": time.Now().Unix(),
			"chat":     map[string]any{"id": num(d.Chat), "type": "private"},
			"document": map[string]any{"file_id": "sent" + strconv.FormatInt(id, 10), "file_unique_id": "us", "file_name": d.Name, "file_size": len(data)}})
		return true
	}
	return false
}
