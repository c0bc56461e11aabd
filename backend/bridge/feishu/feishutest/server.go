// Package feishutest is a Feishu Open Platform on loopback for the bridge's tests: the HTTP
// API's JSON envelope ({code, msg, data}) for the calls the bridge makes (the tenant access
// token of a custom app, bot/v3/info, im/v1/messages create, reply and patch, a message's
// resource, im/v1/files and im/v1/images uploads: files.go), the long
// connection's bootstrap (/callback/ws/endpoint) and its websocket, which carries the SDK's
// own protobuf frames (pbbp2 Frame, encoded with the SDK's ws types: events pushed as data
// frames with type/message_id/sum/seq/trace_id headers, split in parts when asked, pongs
// answering pings with the client's settings). Event and callback bodies follow Feishu's
// documented shapes of im.message.receive_v1 and card.action.trigger. It can answer a call
// with the gateway's rate limit (HTTP 429, code 99991400, x-ogw-ratelimit-reset), hang up on
// the endpoint's request, drop the socket, forget undelivered events, list a chat's history,
// and push an event again as Feishu does when it was not acknowledged.
package feishutest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest/loopback"
)

// The app the server knows: its credentials, its bot and its tenant.
const (
	AppID     = "cli_a1b2c3d4e5f6tofu"
	AppSecret = "tofuTestAppSecret0123456789abcd"
	BotOpenID = "ou_b0t0000000000000000000000000001"
	BotName   = "Tofu"
	TenantKey = "2ca1d211f64f6438"
)

// Token is the tenant access token the server issues for the app: the same on every server,
// as the SDK caches tokens process-wide by app.
var Token = func() string {
	sum := sha256.Sum256([]byte(AppID + ":" + AppSecret))
	return "t-" + hex.EncodeToString(sum[:12])
}()

// Message is a message the bot sent, as the chat shows it now.
type Message struct {
	ID string
	// Chat is the conversation as the bridge names it: the chat_id, or chat_id:root for a
	// reply in a group's thread.
	Chat    string
	Text    string
	Edits   int
	Buttons []Button
	Card    map[string]any // the card as last sent or patched
	// Document is the file or image a file or image message sent (nil for a card).
	Document *Document
}

// Button is a card button: its label and the value pressing it sends back.
type Button struct {
	Label string
	Value map[string]any
}

// Server is the loopback platform; New starts it, Close stops it.
type Server struct {
	URL string
	srv *httptest.Server
	// Faults answer a call (send, reply, patch, history, bot info) with the gateway's rate
	// limit, or hang up on the endpoint's (a lost network); they count the calls.
	loopback.Faults
	changes loopback.Changes

	mu       sync.Mutex
	sent     []*Message
	byUUID   map[string]*Message
	chatOf   map[string]string // a message's chat_id (users' and the bot's)
	rootOf   map[string]string // a message's thread root ("": it has none)
	nextID   int
	socket   *socket
	connects int
	// Fragment sends each event in two frames (sum=2), as Feishu does with large ones.
	Fragment bool
	queue    [][]byte          // events waiting for a connection
	events   map[string][]byte // pushed events by event_id, to push again
	acks     map[string]int    // frames' message_id -> the code the client answered
	said     []map[string]any  // every message as the history lists it, oldest first
	// files in (users' resources by key) and out (the bot's uploads by key)
	resources map[string]*resource
	uploads   map[string]*Document
	fetches   int
}

// New starts a server.
func New() *Server {
	s := &Server{byUUID: map[string]*Message{}, chatOf: map[string]string{}, rootOf: map[string]string{},
		events: map[string][]byte{}, acks: map[string]int{}, resources: map[string]*resource{}, uploads: map[string]*Document{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /open-apis/auth/v3/tenant_access_token/internal", s.tenantToken)
	mux.HandleFunc("POST /callback/ws/endpoint", s.endpoint)
	mux.HandleFunc("GET /ws", s.websocket)
	mux.HandleFunc("GET /open-apis/bot/v3/info", s.authed("bot info", s.botInfo))
	mux.HandleFunc("POST /open-apis/im/v1/messages", s.authed("send", s.create))
	mux.HandleFunc("GET /open-apis/im/v1/messages", s.authed("history", s.history))
	mux.HandleFunc("POST /open-apis/im/v1/messages/{id}/reply", s.authed("reply", s.reply))
	mux.HandleFunc("PATCH /open-apis/im/v1/messages/{id}", s.authed("patch", s.patch))
	mux.HandleFunc("GET /open-apis/im/v1/messages/{id}/resources/{key}", s.authed("resource", s.resourceGet))
	mux.HandleFunc("POST /open-apis/im/v1/files", s.authed("file upload", s.upload("file")))
	mux.HandleFunc("POST /open-apis/im/v1/images", s.authed("image upload", s.upload("image")))
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close stops the server and its socket.
func (s *Server) Close() {
	s.mu.Lock()
	sock := s.socket
	s.mu.Unlock()
	if sock != nil {
		sock.close()
	}
	s.srv.Close()
}

func (s *Server) notify() { s.changes.Notify() }

// Sent is a copy of the bot's messages in a conversation, in order.
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

// Wait blocks until cond holds of what the server shows (it is checked after every change)
// or timeout passes, and says whether it held.
func (s *Server) Wait(timeout time.Duration, cond func() bool) bool {
	return s.changes.Until(timeout, cond)
}

// WaitSent waits until cond holds of a conversation's messages (or timeout) and returns them.
func (s *Server) WaitSent(chat string, timeout time.Duration, cond func([]Message) bool) []Message {
	s.Wait(timeout, func() bool { return cond(s.Sent(chat)) })
	return s.Sent(chat)
}

// envelope writes the API's answer: {code, msg, data}.
func envelope(w http.ResponseWriter, status, code int, msg string, data any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	body := map[string]any{"code": code, "msg": msg}
	if data != nil {
		body["data"] = data
	}
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) tenantToken(w http.ResponseWriter, r *http.Request) {
	var req struct {
		AppID     string `json:"app_id"`
		AppSecret string `json:"app_secret"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if req.AppID != AppID || req.AppSecret != AppSecret {
		_ = json.NewEncoder(w).Encode(map[string]any{"code": 10014, "msg": "app secret invalid"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"code": 0, "msg": "ok", "tenant_access_token": Token, "expire": 7200})
}

// authed checks the tenant access token, counts the call and answers a rate limit when one
// is due, before h.
func (s *Server) authed(op string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+Token {
			envelope(w, http.StatusBadRequest, 99991663, "Invalid access token for authorization. Please make a request with token attached.", nil)
			return
		}
		if f, ok := s.Take(op); ok {
			w.Header().Set("x-ogw-ratelimit-limit", "50")
			w.Header().Set("x-ogw-ratelimit-reset", strconv.Itoa(f.RetryAfter))
			envelope(w, http.StatusTooManyRequests, 99991400, "request trigger frequency limit", nil)
			return
		}
		h(w, r)
	}
}

func (s *Server) botInfo(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"code": 0, "msg": "ok", "bot": map[string]any{
		"activate_status": 2, "app_name": BotName, "avatar_url": "", "ip_white_list": []string{}, "open_id": BotOpenID}})
}

// card reads a message's content: an interactive card's text (its div's plain_text) and
// buttons.
func card(content string) (map[string]any, string, []Button, bool) {
	var c struct {
		Elements []struct {
			Tag  string `json:"tag"`
			Text struct {
				Content string `json:"content"`
			} `json:"text"`
			Actions []struct {
				Text struct {
					Content string `json:"content"`
				} `json:"text"`
				Value map[string]any `json:"value"`
			} `json:"actions"`
		} `json:"elements"`
	}
	var raw map[string]any
	if json.Unmarshal([]byte(content), &raw) != nil || json.Unmarshal([]byte(content), &c) != nil {
		return nil, "", nil, false
	}
	var text []string
	var buttons []Button
	for _, e := range c.Elements {
		switch e.Tag {
		case "div", "markdown":
			text = append(text, e.Text.Content)
		case "action":
			for _, a := range e.Actions {
				buttons = append(buttons, Button{Label: a.Text.Content, Value: a.Value})
			}
		}
	}
	return raw, strings.Join(text, "\n"), buttons, true
}

// sendBody is what create and reply take.
type sendBody struct {
	ReceiveID     string `json:"receive_id"`
	MsgType       string `json:"msg_type"`
	Content       string `json:"content"`
	UUID          string `json:"uuid"`
	ReplyInThread bool   `json:"reply_in_thread"`
}

// store records a message the bot sends (once per uuid) and answers with it.
func (s *Server) store(w http.ResponseWriter, chatID, root string, b sendBody) {
	raw, text, buttons, ok := card(b.Content)
	var doc *Document
	if b.MsgType == "file" || b.MsgType == "image" {
		doc = s.uploaded(b.MsgType, b.Content)
		raw, text, buttons, ok = nil, "", nil, doc != nil
	}
	if (b.MsgType != "interactive" && doc == nil) || !ok {
		envelope(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter.", nil)
		return
	}
	s.mu.Lock()
	m := s.byUUID[b.UUID]
	if m == nil {
		s.nextID++
		m = &Message{ID: "om_bot" + strconv.Itoa(s.nextID), Chat: chatID, Text: text, Buttons: buttons, Card: raw, Document: doc}
		if root != "" {
			m.Chat += ":" + root
			s.rootOf[m.ID] = root
		}
		s.chatOf[m.ID] = chatID
		s.sent = append(s.sent, m)
		if b.UUID != "" {
			s.byUUID[b.UUID] = m
		}
		s.said = append(s.said, historyItem(m.ID, chatID, root, b.MsgType, b.Content,
			map[string]any{"id": AppID, "id_type": "app_id", "sender_type": "app", "tenant_key": TenantKey}, nil))
		s.notify()
	}
	data := map[string]any{"message_id": m.ID, "root_id": root, "parent_id": root, "msg_type": b.MsgType,
		"create_time": strconv.FormatInt(time.Now().UnixMilli(), 10), "update_time": strconv.FormatInt(time.Now().UnixMilli(), 10),
		"deleted": false, "updated": false, "chat_id": chatID,
		"sender": map[string]any{"id": AppID, "id_type": "app_id", "sender_type": "app", "tenant_key": TenantKey},
		"body":   map[string]any{"content": b.Content}}
	s.mu.Unlock()
	envelope(w, http.StatusOK, 0, "success", data)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var b sendBody
	_ = json.NewDecoder(r.Body).Decode(&b)
	if r.URL.Query().Get("receive_id_type") != "chat_id" || !strings.HasPrefix(b.ReceiveID, "oc_") {
		envelope(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter.", nil)
		return
	}
	s.store(w, b.ReceiveID, "", b)
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request) {
	var b sendBody
	_ = json.NewDecoder(r.Body).Decode(&b)
	id := r.PathValue("id")
	s.mu.Lock()
	chatID, root := s.chatOf[id], s.rootOf[id]
	s.mu.Unlock()
	if chatID == "" {
		envelope(w, http.StatusBadRequest, 230011, "The message was withdrawn.", nil)
		return
	}
	if root == "" {
		root = id
	}
	s.store(w, chatID, root, b)
}

func (s *Server) patch(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Content string `json:"content"`
	}
	_ = json.NewDecoder(r.Body).Decode(&b)
	raw, text, buttons, ok := card(b.Content)
	if !ok {
		envelope(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter.", nil)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.sent {
		if m.ID == r.PathValue("id") {
			m.Text, m.Buttons, m.Card = text, buttons, raw
			m.Edits++
			s.notify()
			envelope(w, http.StatusOK, 0, "success", map[string]any{})
			return
		}
	}
	envelope(w, http.StatusBadRequest, 230011, "The message was withdrawn.", nil)
}

// upgrader accepts the client's websocket.
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// historyItem is a message as im/v1/messages list shows it.
func historyItem(id, chatID, root, kind, content string, sender map[string]any, mentions []any) map[string]any {
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	if mentions == nil {
		mentions = []any{}
	}
	return map[string]any{"message_id": id, "root_id": root, "parent_id": root, "msg_type": kind, "create_time": now,
		"update_time": now, "deleted": false, "updated": false, "chat_id": chatID, "sender": sender,
		"body": map[string]any{"content": content}, "mentions": mentions}
}

// history lists a chat's messages from start_time (seconds), oldest first, a page at a time.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("container_id_type") != "chat" || q.Get("sort_type") != "ByCreateTimeAsc" {
		envelope(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter.", nil)
		return
	}
	start, _ := strconv.ParseInt(q.Get("start_time"), 10, 64)
	size, _ := strconv.Atoi(q.Get("page_size"))
	from, _ := strconv.Atoi(q.Get("page_token"))
	if size <= 0 {
		size = 20
	}
	s.mu.Lock()
	var items []map[string]any
	for _, m := range s.said {
		ms, _ := strconv.ParseInt(m["create_time"].(string), 10, 64)
		if m["chat_id"] == q.Get("container_id") && ms/1000 >= start {
			items = append(items, m)
		}
	}
	s.mu.Unlock()
	items = items[min(from, len(items)):]
	more := len(items) > size
	token := ""
	if more {
		items, token = items[:size], strconv.Itoa(from+size)
	}
	envelope(w, http.StatusOK, 0, "success", map[string]any{"has_more": more, "page_token": token, "items": items})
}
