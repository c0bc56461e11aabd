// Package slacktest is a Slack on loopback for the bridge's tests: the Web API methods the
// bridge calls (auth.test, apps.connections.open, chat.postMessage, chat.update) and the
// Socket Mode WebSocket they open, speaking the envelopes Slack documents for Socket Mode
// (hello, events_api carrying an event_callback, interactive carrying block_actions,
// disconnect) in the shapes of slack-go's own socketmode tests and Slack's payload references.
// Envelopes wait for their acknowledgement by envelope_id; one not acknowledged is sent again
// on the next connection, as Slack retries. The bot's own posts and edits come back as message
// events (with its bot_id; message_changed), as Slack sends them. Any method can answer 429
// with Retry-After or lose its connection, and the socket can be asked to reconnect or dropped.
package slacktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest/loopback"
)

// The app's tokens, team and bot user.
const (
	AppToken = "xapp-1-A0TEST-1-loopback"
	BotToken = "xoxb-1-loopback-bot"
	AppID    = "A0TEST"
	TeamID   = "T0TEST"
	BotUser  = "U0BOT"
	BotID    = "B0BOT"
)

// Message is a message the bot sent, as the conversation shows it now.
type Message struct {
	TS      string
	Chat    string // the channel, then ":thread_ts" when in a thread
	Text    string
	Edits   int
	Buttons []Button
}

// Button is one of a message's Block Kit buttons.
type Button struct {
	ActionID, Value, Label string
}

// Server is the loopback Slack. Its Web API methods fail as RateLimit and Drop ask (429 with
// Retry-After; a lost connection); Until waits for a change (a post, an edit, an ack, a
// connection).
type Server struct {
	URL string // the Web API's address, ending in /api/
	srv *httptest.Server
	loopback.Faults
	loopback.Changes

	mu       sync.Mutex
	ts       int64 // the last timestamp given, in microseconds past base
	conn     *socket
	opens    int // WebSocket connections made
	pending  []*envelope
	acks     int
	sent     []*Message
	history  []posted // every message of every conversation, in order
	envelope int
	left     map[string]bool // channels the bot was removed from
	files    files
}

// posted is a message as conversations.history and conversations.replies show it.
type posted struct {
	channel, thread, ts, user, bot string
	msg                            map[string]any
}

// envelope is a Socket Mode request waiting for its acknowledgement.
type envelope struct {
	id      string
	kind    string
	payload any
	tries   int
}

type socket struct {
	ws *websocket.Conn
	mu sync.Mutex // one writer at a time (pings are control frames, safe beside it)
}

// base is the first timestamp the server gives (Slack's ts are seconds.microseconds).
const base = 1_765_000_000

// New starts a server; Close stops it.
func New() *Server {
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/link/", s.serveSocket)
	mux.HandleFunc("/files-pri/", s.serveFile)
	mux.HandleFunc("/upload/", s.serveUpload)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/api/"
	return s
}

// Close stops the server and its socket.
func (s *Server) Close() {
	s.mu.Lock()
	if s.conn != nil {
		s.conn.ws.Close()
	}
	s.mu.Unlock()
	s.srv.Close()
}

// Opens is how many Socket Mode connections were made.
func (s *Server) Opens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opens
}

// Acks is how many envelopes were acknowledged; Unacked how many wait for it.
func (s *Server) Acks() (acked, unacked int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acks, len(s.pending)
}

// nextTS is a new timestamp, later than every other.
func (s *Server) nextTS() string {
	s.ts++
	return fmt.Sprintf("%d.%06d", base+s.ts/1_000_000, s.ts%1_000_000)
}

// Say sends a message from user in chat: a direct message's channel ("D…"), a channel ("C…":
// a message outside a thread) or a channel's thread ("C…:thread_ts"). It returns its ts.
func (s *Server) Say(chat, user, text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.say(chat, user, text, nil)
}

// say sends a message with the fields of extra added (s.mu held).
func (s *Server) say(chat, user, text string, extra map[string]any) string {
	ts := s.nextTS()
	channel, thread, _ := strings.Cut(chat, ":")
	ev := map[string]any{"client_msg_id": fmt.Sprintf("c0ffee00-0000-4000-8000-%012d", s.ts), "type": "message", "text": text,
		"user": user, "ts": ts, "team": TeamID, "channel": channel, "event_ts": ts, "channel_type": channelType(channel),
		"blocks": []any{map[string]any{"type": "rich_text", "block_id": "b" + strconv.FormatInt(s.ts, 10), "elements": []any{
			map[string]any{"type": "rich_text_section", "elements": []any{map[string]any{"type": "text", "text": text}}}}}}}
	if thread != "" {
		ev["thread_ts"] = thread
	}
	for k, v := range extra {
		ev[k] = v
	}
	msg := map[string]any{}
	for k, v := range ev {
		if k != "channel" && k != "event_ts" && k != "channel_type" {
			msg[k] = v
		}
	}
	s.history = append(s.history, posted{channel: channel, thread: thread, ts: ts, user: user, msg: msg})
	s.event(ev)
	return ts
}

// Kick removes the bot from channel: its history is refused (not_in_channel).
func (s *Server) Kick(channel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left == nil {
		s.left = map[string]bool{}
	}
	s.left[channel] = true
}

// Forget drops the envelopes not acknowledged yet: Slack gave up redelivering them (it does
// not keep them while no socket is open), so only the history holds those messages.
func (s *Server) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = nil
	s.Notify()
}

// channelType is what message events say of a channel: im for direct messages.
func channelType(channel string) string {
	if strings.HasPrefix(channel, "D") {
		return "im"
	}
	return "channel"
}

// event queues an events_api envelope carrying an event_callback of ev.
func (s *Server) event(ev map[string]any) {
	s.envelope++
	s.push("events_api", map[string]any{"token": "verification-token-unused", "team_id": TeamID, "api_app_id": AppID,
		"event": ev, "type": "event_callback", "event_id": fmt.Sprintf("Ev0%08d", s.envelope), "event_time": base + s.ts/1_000_000,
		"authorizations":        []any{map[string]any{"enterprise_id": nil, "team_id": TeamID, "user_id": BotUser, "is_bot": true, "is_enterprise_install": false}},
		"is_ext_shared_channel": false, "event_context": "4-eyJldCI6Im1lc3NhZ2UifQ"})
}

// Press sends user's press of the button whose value is value under the bot's message m.
func (s *Server) Press(user string, m Message, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b Button
	for _, x := range m.Buttons {
		if x.Value == value {
			b = x
		}
	}
	channel, thread, _ := strings.Cut(m.Chat, ":")
	container := map[string]any{"type": "message", "message_ts": m.TS, "channel_id": channel, "is_ephemeral": false}
	msg := map[string]any{"bot_id": BotID, "type": "message", "text": m.Text, "user": BotUser, "ts": m.TS, "app_id": AppID, "team": TeamID}
	if thread != "" {
		container["thread_ts"], msg["thread_ts"] = thread, thread
	}
	s.envelope++
	s.push("interactive", map[string]any{"type": "block_actions",
		"user":       map[string]any{"id": user, "username": strings.ToLower(user), "name": strings.ToLower(user), "team_id": TeamID},
		"api_app_id": AppID, "token": "verification-token-unused", "container": container,
		"trigger_id": fmt.Sprintf("%d.%d.0c0ffee", base, s.envelope),
		"team":       map[string]any{"id": TeamID, "domain": "tofu-loopback"}, "enterprise": nil, "is_enterprise_install": false,
		"channel": map[string]any{"id": channel, "name": "directmessage"}, "message": msg, "state": map[string]any{"values": map[string]any{}},
		"response_url": "https://hooks.slack.com/actions/T0TEST/1/loopback",
		"actions": []any{map[string]any{"action_id": b.ActionID, "block_id": "tofu-approval", "value": value, "style": "primary", "type": "button",
			"text": map[string]any{"type": "plain_text", "text": b.Label, "emoji": true}, "action_ts": s.nextTS()}}})
}

// Command sends user's slash command (command "/tofu", text "stop") typed in channel, as a
// slash_commands envelope.
func (s *Server) Command(channel, user, command, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.envelope++
	s.push("slash_commands", map[string]any{"token": "verification-token-unused", "team_id": TeamID, "team_domain": "tofu-loopback",
		"channel_id": channel, "channel_name": "directmessage", "user_id": user, "user_name": strings.ToLower(user),
		"command": command, "text": text, "api_app_id": AppID, "is_enterprise_install": false,
		"response_url": "https://hooks.slack.com/commands/T0TEST/1/loopback", "trigger_id": fmt.Sprintf("%d.%d.0c0ffee", base, s.envelope)})
}

// push queues an envelope and sends it on the open socket, if one is.
func (s *Server) push(kind string, payload any) {
	e := &envelope{id: fmt.Sprintf("e%07d-4094-4744-90ca-d286e00a3ab1", s.envelope), kind: kind, payload: payload}
	s.pending = append(s.pending, e)
	if s.conn != nil {
		s.write(s.conn, e)
	}
}

// write sends e on c (s.mu held).
func (s *Server) write(c *socket, e *envelope) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.ws.WriteJSON(map[string]any{"envelope_id": e.id, "payload": e.payload, "type": e.kind,
		"accepts_response_payload": false, "retry_attempt": e.tries, "retry_reason": retryReason(e.tries)})
	e.tries++
}

func retryReason(tries int) string {
	if tries == 0 {
		return ""
	}
	return "timeout"
}

// Disconnect asks the open socket's client to reconnect, as Slack does before it recycles a
// connection (reason "refresh_requested", or "warning" a little before).
func (s *Server) Disconnect(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.conn; c != nil {
		c.mu.Lock()
		_ = c.ws.WriteJSON(map[string]any{"type": "disconnect", "reason": reason, "debug_info": map[string]any{"host": "applink-loopback-1"}})
		c.mu.Unlock()
	}
}

// DropSocket cuts the open socket's connection without a word (a network failure).
func (s *Server) DropSocket() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.ws.NetConn().Close()
		s.conn = nil
	}
}

// Sent is a copy of the bot's messages in chat, in order.
func (s *Server) Sent(chat string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.sent {
		if m.Chat == chat {
			c := *m
			c.Buttons = append([]Button(nil), m.Buttons...)
			out = append(out, c)
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

// serveSocket is the Socket Mode WebSocket: hello, then the envelopes not acknowledged yet,
// then each new one; it reads the client's acknowledgements and pings it every half second.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &socket{ws: ws}
	s.mu.Lock()
	if s.conn != nil {
		s.conn.ws.Close()
	}
	s.conn = c
	s.opens++
	c.mu.Lock()
	_ = ws.WriteJSON(map[string]any{"type": "hello", "num_connections": 1, "debug_info": map[string]any{
		"host": "applink-loopback-1", "build_number": 10, "approximate_connection_time": 18060}, "connection_info": map[string]any{"app_id": AppID}})
	c.mu.Unlock()
	for _, e := range s.pending {
		s.write(c, e)
	}
	s.Notify()
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if ws.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(5*time.Second)) != nil {
					return
				}
			}
		}
	}()
	defer close(done)
	for {
		var ack struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if err := ws.ReadJSON(&ack); err != nil {
			s.mu.Lock()
			if s.conn == c {
				s.conn = nil
			}
			s.mu.Unlock()
			ws.Close()
			return
		}
		s.mu.Lock()
		for i, e := range s.pending {
			if e.id == ack.EnvelopeID {
				s.pending = append(s.pending[:i], s.pending[i+1:]...)
				s.acks++
				break
			}
		}
		s.Notify()
		s.mu.Unlock()
	}
}

// serveAPI answers the Web API's methods (POST /api/METHOD, form or JSON, the token in the
// form or as a Bearer header), each in Slack's {"ok": …} envelope.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	_ = r.ParseForm()
	token := r.Form.Get("token")
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		token = t
	}
	if f, ok := s.Take(method); ok {
		if f.Drop && loopback.Hangup(w) {
			return
		}
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"ok": false, "error": "ratelimited"})
		return
	}
	want := BotToken
	if method == "apps.connections.open" {
		want = AppToken
	}
	if token == "" {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "not_authed"})
		return
	}
	if token != want {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	switch method {
	case "auth.test":
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "url": "https://tofu-loopback.slack.com/", "team": "Tofu Loopback",
			"user": "tofu", "team_id": TeamID, "user_id": BotUser, "bot_id": BotID, "is_enterprise_install": false})
	case "apps.connections.open":
		ws := "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/link/?ticket=" + strconv.Itoa(s.Calls(method)) + "&app_id=" + AppID
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "url": ws})
	case "chat.postMessage":
		s.postMessage(w, r.Form)
	case "chat.update":
		s.update(w, r.Form)
	case "files.getUploadURLExternal":
		s.uploadURL(w, r.Form)
	case "files.completeUploadExternal":
		s.completeUpload(w, r.Form)
	case "conversations.history", "conversations.replies":
		s.mu.Lock()
		left := s.left[r.Form.Get("channel")]
		s.mu.Unlock()
		switch {
		case left:
			writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "not_in_channel"})
		case method == "conversations.history":
			s.conversationsHistory(w, r.Form)
		default:
			s.conversationsReplies(w, r.Form)
		}
	default:
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "unknown_method", "req_method": method})
	}
}

// botMessage is the bot's message m as events and answers show it.
func botMessage(m *Message, blocks any) map[string]any {
	msg := map[string]any{"bot_id": BotID, "type": "message", "text": m.Text, "user": BotUser, "ts": m.TS, "app_id": AppID,
		"team": TeamID, "bot_profile": map[string]any{"id": BotID, "app_id": AppID, "name": "Tofu", "deleted": false, "team_id": TeamID}}
	if blocks != nil {
		msg["blocks"] = blocks
	}
	if _, thread, ok := strings.Cut(m.Chat, ":"); ok {
		msg["thread_ts"] = thread
	}
	return msg
}

func (s *Server) postMessage(w http.ResponseWriter, form url.Values) {
	channel, thread := form.Get("channel"), form.Get("thread_ts")
	if channel == "" {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "channel_not_found"})
		return
	}
	var blocks []map[string]any
	if b := form.Get("blocks"); b != "" {
		if err := json.Unmarshal([]byte(b), &blocks); err != nil {
			writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_blocks"})
			return
		}
	}
	s.mu.Lock()
	m := &Message{TS: s.nextTS(), Chat: channel, Text: form.Get("text")}
	if thread != "" {
		m.Chat += ":" + thread
	}
	for _, b := range blocks {
		if b["type"] != "actions" {
			continue
		}
		els, _ := b["elements"].([]any)
		for _, e := range els {
			el, _ := e.(map[string]any)
			text, _ := el["text"].(map[string]any)
			m.Buttons = append(m.Buttons, Button{ActionID: str(el["action_id"]), Value: str(el["value"]), Label: str(text["text"])})
		}
	}
	s.sent = append(s.sent, m)
	msg := botMessage(m, blocks)
	s.history = append(s.history, posted{channel: channel, thread: thread, ts: m.TS, user: BotUser, bot: BotID, msg: msg})
	ev := map[string]any{"channel": channel, "event_ts": m.TS, "channel_type": channelType(channel)}
	for k, v := range msg {
		ev[k] = v
	}
	s.event(ev) // Slack tells the app of its own message too
	s.Notify()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": channel, "ts": m.TS, "message": msg})
}

func (s *Server) update(w http.ResponseWriter, form url.Values) {
	channel, ts, text := form.Get("channel"), form.Get("ts"), form.Get("text")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.sent {
		if m.TS != ts || !strings.HasPrefix(m.Chat+":", channel+":") {
			continue
		}
		before := botMessage(m, nil)
		m.Text = text
		m.Edits++
		after := botMessage(m, nil)
		after["edited"] = map[string]any{"user": BotUser, "ts": s.nextTS()}
		s.event(map[string]any{"type": "message", "subtype": "message_changed", "message": after, "previous_message": before,
			"channel": channel, "hidden": true, "ts": s.nextTS(), "event_ts": ts, "channel_type": channelType(channel)})
		s.Notify()
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": channel, "ts": ts, "text": text, "message": after})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "message_not_found"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// conversationsHistory answers a channel's messages outside threads (and threads' first
// messages) after oldest, newest first, in one page.
func (s *Server) conversationsHistory(w http.ResponseWriter, form url.Values) {
	channel, oldest := form.Get("channel"), form.Get("oldest")
	s.mu.Lock()
	msgs := []any{}
	for i := len(s.history) - 1; i >= 0; i-- {
		p := s.history[i]
		if p.channel == channel && (p.thread == "" || p.thread == p.ts) && later(p.ts, oldest) {
			msgs = append(msgs, p.msg)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "messages": msgs, "has_more": false, "pin_count": 0,
		"response_metadata": map[string]any{"next_cursor": ""}})
}

// conversationsReplies answers a thread: its first message, then the replies after oldest,
// oldest first, in one page.
func (s *Server) conversationsReplies(w http.ResponseWriter, form url.Values) {
	channel, ts, oldest := form.Get("channel"), form.Get("ts"), form.Get("oldest")
	s.mu.Lock()
	msgs := []any{}
	for _, p := range s.history {
		if p.channel == channel && (p.ts == ts || (p.thread == ts && later(p.ts, oldest))) {
			msgs = append(msgs, p.msg)
		}
	}
	s.mu.Unlock()
	if len(msgs) == 0 {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "thread_not_found"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "messages": msgs, "has_more": false,
		"response_metadata": map[string]any{"next_cursor": ""}})
}

// later says whether ts is after oldest ("": every ts is); the server's timestamps all have
// the same width, so they compare as strings.
func later(ts, oldest string) bool { return oldest == "" || ts > oldest }
