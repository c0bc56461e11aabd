// Package telegramtest is a Telegram Bot API server on loopback for the bridge's tests: it
// speaks the API's JSON envelope and the shapes of Update, Message, User, Chat and
// CallbackQuery as the Bot API documents them (and go-telegram-bot-api v5's types.go spells
// them), holds the chat's messages, and can answer 429 with retry_after or drop a poll.
package telegramtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest/loopback"
)

// Token is the bot token the server accepts.
const Token = "123456:TEST-token"

// BotID is the bot's user id.
const BotID = 777

// Message is a message the bot sent, as the chat shows it now.
type Message struct {
	ID      int64
	Chat    string
	Text    string
	Edits   int      // how many times it was edited
	Buttons []string // callback_data of its inline buttons
}

// Server is the loopback Bot API. Its methods fail as RateLimit and Drop ask (429 with
// retry_after; a lost connection).
type Server struct {
	URL string
	srv *httptest.Server
	loopback.Faults
	loopback.Changes

	mu      sync.Mutex
	updates []json.RawMessage
	nextUp  int64
	nextMsg int64
	sent    []*Message
}

// New starts a server; Close stops it.
func New() *Server {
	s := &Server{nextUp: 100, nextMsg: 1}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Say queues a text message from user in chat (a private chat's id is the user's).
func (s *Server) Say(chat, user int64, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := map[string]any{"message_id": s.nextMsg, "date": time.Now().Unix(), "text": text,
		"from": map[string]any{"id": user, "is_bot": false, "first_name": "U" + strconv.FormatInt(user, 10)},
		"chat": map[string]any{"id": chat, "type": "private"}}
	s.nextMsg++
	s.push(map[string]any{"message": msg})
}

// Press queues user's press of the button with callback data under the bot's message id.
func (s *Server) Press(chat, user int64, id int64, data string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.push(map[string]any{"callback_query": map[string]any{
		"id": "cb" + strconv.FormatInt(s.nextUp, 10), "chat_instance": "ci", "data": data,
		"from":    map[string]any{"id": user, "is_bot": false, "first_name": "U"},
		"message": map[string]any{"message_id": id, "date": time.Now().Unix(), "chat": map[string]any{"id": chat, "type": "private"}},
	}})
}

func (s *Server) push(u map[string]any) {
	u["update_id"] = s.nextUp
	s.nextUp++
	b, _ := json.Marshal(u)
	s.updates = append(s.updates, b)
	s.Notify()
}

// Sent is a copy of the bot's messages in chat, in order.
func (s *Server) Sent(chat string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.sent {
		if m.Chat == chat {
			out = append(out, *m)
		}
	}
	return out
}

// Wait blocks until cond holds of the bot's messages in chat or timeout passes; it returns
// them either way (the caller's check says what was expected).
func (s *Server) Wait(chat string, timeout time.Duration, cond func([]Message) bool) []Message {
	s.Until(timeout, func() bool { return cond(s.Sent(chat)) })
	return s.Sent(chat)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	token, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/bot"), "/")
	if !ok || token != Token {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"ok": false, "error_code": 401, "description": "Unauthorized"})
		return
	}
	var params map[string]any
	_ = json.NewDecoder(r.Body).Decode(&params)
	if f, ok := s.Take(method); ok {
		if f.Drop && loopback.Hangup(w) {
			return
		}
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"ok": false, "error_code": http.StatusTooManyRequests,
			"description": "Too Many Requests: retry after " + strconv.Itoa(f.RetryAfter),
			"parameters":  map[string]any{"retry_after": f.RetryAfter}})
		return
	}
	switch method {
	case "getMe":
		ok200(w, map[string]any{"id": BotID, "is_bot": true, "first_name": "Tofu", "username": "tofu_test_bot"})
	case "getUpdates":
		s.getUpdates(w, r, params)
	case "sendMessage":
		s.sendMessage(w, params)
	case "editMessageText":
		s.editMessageText(w, params)
	case "answerCallbackQuery":
		ok200(w, true)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"ok": false, "error_code": 404, "description": "Not Found: method not found"})
	}
}

// getUpdates confirms the updates before offset and answers those after it, waiting up to
// timeout seconds for one.
func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, params map[string]any) {
	offset := int64(num(params["offset"]))
	deadline := time.After(time.Duration(num(params["timeout"])) * time.Second)
	for {
		s.mu.Lock()
		var out []json.RawMessage
		keep := s.updates[:0]
		for _, u := range s.updates {
			var head struct {
				UpdateID int64 `json:"update_id"`
			}
			_ = json.Unmarshal(u, &head)
			if head.UpdateID < offset {
				continue // confirmed: forgotten, as the API does
			}
			keep = append(keep, u)
			out = append(out, u)
		}
		s.updates = keep
		ch := s.Changed()
		s.mu.Unlock()
		if len(out) > 0 {
			ok200(w, out)
			return
		}
		select {
		case <-ch:
		case <-deadline:
			ok200(w, []any{})
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (s *Server) sendMessage(w http.ResponseWriter, params map[string]any) {
	s.mu.Lock()
	m := &Message{ID: s.nextMsg, Chat: str(params["chat_id"]), Text: str(params["text"])}
	s.nextMsg++
	if markup, ok := params["reply_markup"].(map[string]any); ok {
		rows, _ := markup["inline_keyboard"].([]any)
		for _, row := range rows {
			buttons, _ := row.([]any)
			for _, b := range buttons {
				if bm, ok := b.(map[string]any); ok {
					m.Buttons = append(m.Buttons, str(bm["callback_data"]))
				}
			}
		}
	}
	s.sent = append(s.sent, m)
	s.Notify()
	s.mu.Unlock()
	ok200(w, map[string]any{"message_id": m.ID, "date": time.Now().Unix(), "text": m.Text,
		"from": map[string]any{"id": BotID, "is_bot": true, "first_name": "Tofu"},
		"chat": map[string]any{"id": num(params["chat_id"]), "type": "private"}})
}

func (s *Server) editMessageText(w http.ResponseWriter, params map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, chat, text := int64(num(params["message_id"])), str(params["chat_id"]), str(params["text"])
	for _, m := range s.sent {
		if m.ID == id && m.Chat == chat {
			if m.Text == text {
				writeJSON(w, http.StatusBadRequest, map[string]any{"ok": false, "error_code": 400,
					"description": "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"})
				return
			}
			m.Text = text
			m.Edits++
			s.Notify()
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": map[string]any{"message_id": id, "text": text,
				"date": time.Now().Unix(), "chat": map[string]any{"id": num(params["chat_id"]), "type": "private"}}})
			return
		}
	}
	writeJSON(w, http.StatusBadRequest, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: message to edit not found"})
}

func ok200(w http.ResponseWriter, result any) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// num reads a JSON number or a numeric string.
func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatInt(int64(x), 10)
	}
	return ""
}
