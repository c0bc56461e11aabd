package slacktest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Document is a file the bot uploaded into a conversation.
type Document struct {
	Chat, Name string
	Data       []byte
}

// files are the files people shared (served at their url_private_download to the bot token),
// the uploads under way, and the bot's uploaded documents.
type files struct {
	next     int
	shared   map[string][]byte // by path
	uploads  map[string][]byte // by file id, uploaded but not completed
	names    map[string]string // by file id
	uploaded []Document
}

// SayFile shares a file with a caption in chat, as a file_share message, and returns its ts.
func (s *Server) SayFile(chat, user, name string, data []byte, caption string) string {
	return s.share(chat, user, name, len(data), data, caption)
}

// SayLargeFile shares a file of size bytes (never downloaded) in chat.
func (s *Server) SayLargeFile(chat, user, name string, size int) string {
	return s.share(chat, user, name, size, nil, "")
}

func (s *Server) share(chat, user, name string, size int, data []byte, caption string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files.next++
	id := fmt.Sprintf("F%08d", s.files.next)
	path := "/files-pri/" + TeamID + "-" + id + "/download/" + url.PathEscape(name)
	if data != nil {
		if s.files.shared == nil {
			s.files.shared = map[string][]byte{}
		}
		s.files.shared[path] = data
	}
	file := map[string]any{"id": id, "created": base, "timestamp": base, "name": name, "title": name,
		"mimetype": "text/plain", "filetype": "text", "pretty_type": "Plain Text", "user": user, "user_team": TeamID,
		"editable": true, "size": size, "mode": "hosted", "is_external": false, "external_type": "", "is_public": false,
		"public_url_shared": false, "display_as_bot": false, "username": "",
		"url_private": s.srv.URL + strings.Replace(path, "/download/", "/", 1), "url_private_download": s.srv.URL + path,
		"permalink": "https://tofu-loopback.slack.com/files/" + user + "/" + id + "/" + name, "has_rich_preview": false}
	return s.say(chat, user, caption, map[string]any{"subtype": "file_share", "files": []any{file}, "upload": false, "display_as_bot": false})
}

// Documents are the files the bot uploaded into chat, in order.
func (s *Server) Documents(chat string) []Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Document
	for _, d := range s.files.uploaded {
		if d.Chat == chat {
			out = append(out, d)
		}
	}
	return out
}

// serveFile serves a shared file to the bot token, as files.slack.com does.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+BotToken {
		http.Error(w, "sign in", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	data, ok := s.files.shared[r.URL.EscapedPath()]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(data)
}

// uploadURL answers files.getUploadURLExternal: where to upload a file of length bytes.
func (s *Server) uploadURL(w http.ResponseWriter, form url.Values) {
	length, err := strconv.Atoi(form.Get("length"))
	if form.Get("filename") == "" || err != nil || length <= 0 {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_arguments"})
		return
	}
	s.mu.Lock()
	s.files.next++
	id := fmt.Sprintf("F%08d", s.files.next)
	if s.files.names == nil {
		s.files.names, s.files.uploads = map[string]string{}, map[string][]byte{}
	}
	s.files.names[id] = form.Get("filename")
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "upload_url": s.srv.URL + "/upload/" + id, "file_id": id})
}

// serveUpload takes the file's bytes (the multipart field "file"), as files.slack.com does.
func (s *Server) serveUpload(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/upload/")
	f, _, err := r.FormFile("file")
	if err != nil {
		http.Error(w, "no file", http.StatusBadRequest)
		return
	}
	data, _ := io.ReadAll(f)
	s.mu.Lock()
	_, known := s.files.names[id]
	if known {
		s.files.uploads[id] = data
	}
	s.mu.Unlock()
	if !known {
		http.NotFound(w, r)
		return
	}
	_, _ = fmt.Fprintf(w, "OK - %d", len(data))
}

// completeUpload answers files.completeUploadExternal: the uploaded files are shared in the
// channel (in thread_ts's thread).
func (s *Server) completeUpload(w http.ResponseWriter, form url.Values) {
	var list []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(form.Get("files")), &list); err != nil || len(list) == 0 || form.Get("channel_id") == "" {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_arguments"})
		return
	}
	chat := form.Get("channel_id")
	if t := form.Get("thread_ts"); t != "" {
		chat += ":" + t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var done []any
	for _, f := range list {
		data, ok := s.files.uploads[f.ID]
		if !ok {
			writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "file_not_found"})
			return
		}
		delete(s.files.uploads, f.ID)
		s.files.uploaded = append(s.files.uploaded, Document{Chat: chat, Name: s.files.names[f.ID], Data: data})
		done = append(done, map[string]any{"id": f.ID, "title": f.Title})
	}
	s.Notify()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "files": done})
}
