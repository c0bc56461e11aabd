package feishutest

import (
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	larkws "github.com/larksuite/oapi-sdk-go/v3/ws"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest/loopback"
)

// clientConfig is what the endpoint and every pong tell the client (the SDK's
// ClientConfig): retry for ever, at once after a drop and then every second, ping every
// two minutes (Feishu's own settings wait longer; the tests cannot).
var clientConfig = map[string]int{"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 0, "PingInterval": 120}

// serviceID is the service the endpoint's URL names; the client puts it in its pings.
const serviceID = 7

func (s *Server) endpoint(w http.ResponseWriter, r *http.Request) {
	var req larkws.BootstrapRequest
	_ = json.NewDecoder(r.Body).Decode(&req)
	if req.AppID != AppID || req.AppSecret != AppSecret {
		envelope(w, http.StatusOK, 10014, "app secret invalid", nil)
		return
	}
	if f, ok := s.Take("endpoint"); ok && f.Drop && loopback.Hangup(w) {
		return
	}
	device := strconv.Itoa(s.Calls("endpoint"))
	u := "ws" + s.URL[len("http"):] + "/ws?device_id=dev" + device + "&service_id=" + strconv.Itoa(serviceID)
	envelope(w, http.StatusOK, 0, "ok", map[string]any{"URL": u, "ClientConfig": clientConfig})
}

// socket is one client's websocket.
type socket struct {
	conn *websocket.Conn
	wmu  sync.Mutex
}

func (k *socket) write(f *larkws.Frame) error {
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	k.wmu.Lock()
	defer k.wmu.Unlock()
	return k.conn.WriteMessage(websocket.BinaryMessage, b)
}

func (k *socket) close() { _ = k.conn.Close() }

// websocket serves a long connection: events queued while no client was connected are pushed
// at once; pings are answered with pongs; the client's answers to events are recorded.
func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("device_id") == "" {
		http.Error(w, "no device", http.StatusForbidden)
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	sock := &socket{conn: conn}
	s.mu.Lock()
	if s.socket != nil {
		s.socket.close()
	}
	s.socket = sock
	s.connects++
	queued := s.queue
	s.queue = nil
	s.notify()
	s.mu.Unlock()
	for _, ev := range queued {
		s.push(ev)
	}
	defer func() {
		s.mu.Lock()
		if s.socket == sock {
			s.socket = nil
		}
		s.mu.Unlock()
		sock.close()
	}()
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			return
		}
		var f larkws.Frame
		if f.Unmarshal(data) != nil {
			continue
		}
		hs := larkws.Headers(f.Headers)
		switch larkws.FrameType(f.Method) {
		case larkws.FrameTypeControl:
			if hs.GetString(larkws.HeaderType) == string(larkws.MessageTypePing) {
				conf, _ := json.Marshal(clientConfig)
				pong := larkws.Headers{}
				pong.Add(larkws.HeaderType, string(larkws.MessageTypePong))
				_ = sock.write(&larkws.Frame{Method: int32(larkws.FrameTypeControl), Service: f.Service, Headers: pong, Payload: conf})
			}
		case larkws.FrameTypeData:
			var resp larkws.Response
			_ = json.Unmarshal(f.Payload, &resp)
			s.mu.Lock()
			s.acks[hs.GetString(larkws.HeaderMessageID)] = resp.StatusCode
			s.notify()
			s.mu.Unlock()
		}
	}
}

// Connects is how many websockets the client has opened.
func (s *Server) Connects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects
}

// Connected says whether a client's websocket is open.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.socket != nil
}

// DropSocket closes the client's websocket as a lost network would.
func (s *Server) DropSocket() {
	s.mu.Lock()
	sock := s.socket
	s.socket = nil
	s.notify()
	s.mu.Unlock()
	if sock != nil {
		sock.close()
	}
}

// Forget drops the events waiting for a client, as Feishu gives up on a client that is not
// there: only the history has them.
func (s *Server) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = nil
}

// Ack is the code the client answered the frame with message_id (0: none yet).
func (s *Server) Ack(frame string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acks[frame]
}

// push sends an event to the connected client as data frames (queued until one connects)
// and returns the frames' message_id.
func (s *Server) push(event []byte) string {
	s.mu.Lock()
	s.nextID++
	frameID := "frame" + strconv.Itoa(s.nextID)
	sock, parts := s.socket, [][]byte{event}
	if sock == nil {
		s.queue = append(s.queue, event)
		s.mu.Unlock()
		return ""
	}
	if s.Fragment && len(event) > 1 {
		parts = [][]byte{event[:len(event)/2], event[len(event)/2:]}
	}
	s.mu.Unlock()
	for i, p := range parts {
		hs := larkws.Headers{}
		hs.Add(larkws.HeaderType, string(larkws.MessageTypeEvent))
		hs.Add(larkws.HeaderMessageID, frameID)
		hs.Add(larkws.HeaderSum, strconv.Itoa(len(parts)))
		hs.Add(larkws.HeaderSeq, strconv.Itoa(i))
		hs.Add(larkws.HeaderTraceID, "trace-"+frameID)
		hs.Add(larkws.HeaderTimestamp, strconv.FormatInt(time.Now().UnixMilli(), 10))
		if sock.write(&larkws.Frame{SeqID: uint64(i), Service: serviceID, Method: int32(larkws.FrameTypeData), Headers: hs, Payload: p}) != nil {
			s.mu.Lock()
			s.queue = append(s.queue, event)
			s.mu.Unlock()
			return ""
		}
	}
	return frameID
}

// event makes an event body of type with a fresh event_id, records it for Redeliver and
// pushes it; it returns the event_id.
func (s *Server) event(eventType string, body map[string]any) string {
	s.mu.Lock()
	s.nextID++
	id := "ev" + strconv.Itoa(s.nextID) + "5e3702a84e847582be8db7fb73283c02"
	s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"schema": "2.0",
		"header": map[string]any{"event_id": id, "event_type": eventType, "create_time": strconv.FormatInt(time.Now().UnixMilli(), 10),
			"token": "", "app_id": AppID, "tenant_key": TenantKey},
		"event": body})
	s.mu.Lock()
	s.events[id] = b
	s.mu.Unlock()
	s.push(b)
	return id
}

// Redeliver pushes the event again, as Feishu does with one it holds unacknowledged, and
// returns the new frames' message_id ("": queued until a client connects).
func (s *Server) Redeliver(eventID string) string {
	s.mu.Lock()
	b := s.events[eventID]
	s.mu.Unlock()
	return s.push(b)
}

// userID is a user's ids as events spell them.
func userID(openID string) map[string]any {
	return map[string]any{"open_id": openID, "union_id": "on_" + openID[3:], "user_id": "u" + openID[3:]}
}

// message pushes im.message.receive_v1 for a user's text message and returns the message's
// id and the event's.
func (s *Server) message(chatID, chatType, root, user, text string, mentions []any) (string, string) {
	content, _ := json.Marshal(map[string]string{"text": text})
	id := s.userMessageID()
	return id, s.say(id, chatID, chatType, root, user, "text", string(content), mentions)
}

// userMessageID is a new message id for a user's message.
func (s *Server) userMessageID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return "om_user" + strconv.Itoa(s.nextID)
}

// say pushes im.message.receive_v1 for a user's message id of kind (message_type) with
// content, and lists it in the chat's history; it returns the event's id.
func (s *Server) say(id, chatID, chatType, root, user, kind, content string, mentions []any) string {
	s.mu.Lock()
	s.chatOf[id], s.rootOf[id] = chatID, root
	s.mu.Unlock()
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	if mentions == nil {
		mentions = []any{}
	}
	var listed []any // the history's mentions spell the id as a string
	for _, m := range mentions {
		at := maps.Clone(m.(map[string]any))
		at["id"], at["id_type"] = BotOpenID, "open_id"
		listed = append(listed, at)
	}
	s.mu.Lock()
	s.said = append(s.said, historyItem(id, chatID, root, kind, content,
		map[string]any{"id": user, "id_type": "open_id", "sender_type": "user", "tenant_key": TenantKey}, listed))
	s.mu.Unlock()
	return s.event("im.message.receive_v1", map[string]any{
		"sender": map[string]any{"sender_id": userID(user), "sender_type": "user", "tenant_key": TenantKey},
		"message": map[string]any{"message_id": id, "root_id": root, "parent_id": root, "create_time": now, "update_time": now,
			"chat_id": chatID, "chat_type": chatType, "message_type": kind, "content": content, "mentions": mentions,
			"user_agent": "Mozilla/5.0 Lark/7.1.0"}})
}

// Say pushes a user's text message in their direct chat with the bot; it returns the
// event's id.
func (s *Server) Say(chat, user, text string) string {
	_, ev := s.message(chat, "p2p", "", user, text, nil)
	return ev
}

// SayInGroup pushes a user's message mentioning the bot in a group: in the thread of root,
// or starting one when root is "". It returns the message's id.
func (s *Server) SayInGroup(chat, root, user, text string) string {
	at := map[string]any{"key": "@_user_1", "id": userID(BotOpenID), "name": BotName, "tenant_key": TenantKey}
	id, _ := s.message(chat, "group", root, user, "@_user_1 "+text, []any{at})
	return id
}

// Press pushes card.action.trigger: user pressed a button of the bot's card message in chat.
func (s *Server) Press(chat, user, message string, value map[string]any) string {
	return s.event("card.action.trigger", map[string]any{
		"operator": map[string]any{"tenant_key": TenantKey, "user_id": "u" + user[3:], "open_id": user, "union_id": "on_" + user[3:]},
		"token":    "c-295ee57216a5dc9de90fefd0aadb4b1d7d",
		"action":   map[string]any{"value": value, "tag": "button", "timezone": "Asia/Shanghai"},
		"host":     "im_message",
		"context":  map[string]any{"open_message_id": message, "open_chat_id": chat}})
}
