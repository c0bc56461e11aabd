// Package web is the HTTP transport of the services for `tofu serve`: each call is a POST to
// /api/call/Service.Method, events stream as Server-Sent Events, and the paper routes serve
// PDFs, exports and uploads. Every request must come from the server's own origin (origin.go).
package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// NewToken returns a random per-run token for `tofu serve`.
func NewToken() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the OS random source does not fail on supported systems
	}
	return hex.EncodeToString(b[:])
}

// Server exposes the services over HTTP + Server-Sent Events for the browser front end. It is
// an Emitter: events it is given go to every connected browser.
type Server struct {
	services map[string]any
	papers   http.Handler
	static   http.Handler
	token    string
	// largeBodies holds a token per call reading a body over smallBody bytes (or of unknown
	// length), so many concurrent large calls wait instead of each holding up to maxCallBody.
	largeBodies chan struct{}

	mu      sync.Mutex
	clients map[chan []byte]struct{}
}

// NewServer serves the services and the front-end files in static. Every request must
// come from the server's own origin (origin.go); every /api/ request must also carry token in
// the X-Tofu-Token header. There is no cookie: browsers send a cookie of 127.0.0.1 to every
// port of it, so any local server a page of the user's visited would receive it and could
// replay it. The page takes the token from the address's fragment (#token=, never sent to a
// server) and holds it in its own memory (sessionStorage, which is per origin, so per port).
// The front-end files themselves hold nothing secret and need no token.
//
// services are the bound services by name (app.App.Services), papers the paper routes
// (PaperRoutes).
func NewServer(services map[string]any, papers http.Handler, static fs.FS, token string) *Server {
	files := http.FileServerFS(static)
	if !UIBuilt(static) {
		files = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, UINotBuilt, http.StatusServiceUnavailable)
		})
	}
	return &Server{
		services: services,
		papers:   papers,
		static:   files,
		token:    token,
		clients:  map[chan []byte]struct{}{},

		largeBodies: make(chan struct{}, 2),
	}
}

// UINotBuilt says what a binary built without the front end serves instead of it (it served
// a directory listing of .gitkeep).
const UINotBuilt = "The Tofu UI was not built into this binary (frontend/dist holds no index.html). " +
	"Build it with `make frontend` (or `cd frontend && npm ci && npm run build`), then build tofu again. " +
	"The API at /api/ works without it."

// UIBuilt says whether static holds the built front end.
func UIBuilt(static fs.FS) bool {
	_, err := fs.Stat(static, "index.html")
	return err == nil
}

// contentSecurityPolicy is the page's: it may talk to this server only. Fonts may be inlined
// (the build inlines KaTeX's smallest, KaTeX_Size3, as a data: URL).
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data: blob:; font-src 'self' data:; " +
	"style-src 'self' 'unsafe-inline'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// No other origin may embed or read anything served here, even where a check below is
	// not reached (browsers that send no fetch metadata).
	w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if bad := checkOrigin(r, s.validToken); bad != nil {
		http.Error(w, bad.msg, bad.status)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") && !s.validToken(r.Header.Get("X-Tofu-Token")) {
		http.Error(w, "unauthorized: open the address printed by `tofu serve` (it carries the token); calls send it in the X-Tofu-Token header", http.StatusUnauthorized)
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/call/"):
		s.call(w, r, strings.TrimPrefix(r.URL.Path, "/api/call/"))
	case r.URL.Path == "/api/events":
		s.events(w, r)
	case strings.HasPrefix(r.URL.Path, "/api/paper/"):
		s.papers.ServeHTTP(w, r)
	case strings.HasPrefix(r.URL.Path, "/api/"):
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
		s.static.ServeHTTP(w, r)
	}
}

func (s *Server) validToken(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// Bodies of calls: any call may send smallBody bytes; larger ones (a PDF as base64) take one
// of two slots while they are read and decoded.
const (
	smallBody   = 1 << 20
	maxCallBody = 32 << 20
)

// call invokes Service.Method with the JSON array in the body as arguments.
func (s *Server) call(w http.ResponseWriter, r *http.Request, name string) {
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use POST"})
		return
	}
	svcName, methodName, ok := strings.Cut(name, ".")
	svc, found := s.services[svcName]
	if !ok || !found || methodName == "" || !isExported(methodName) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such method: " + name})
		return
	}
	m := reflect.ValueOf(svc).MethodByName(methodName)
	if !m.IsValid() {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such method: " + name})
		return
	}
	var raw []json.RawMessage
	limit := int64(smallBody)
	if r.ContentLength < 0 || r.ContentLength > smallBody {
		select {
		case s.largeBodies <- struct{}{}:
			defer func() { <-s.largeBodies }()
		case <-r.Context().Done():
			return
		}
		limit = maxCallBody
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if _, over := errors.AsType[*http.MaxBytesError](err); over {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": fmt.Sprintf(
			"the call's body is over %d MB: send a PDF to /api/paper/import instead", maxCallBody>>20)})
		return
	}
	if err == nil && len(strings.TrimSpace(string(body))) > 0 {
		err = json.Unmarshal(body, &raw)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the body must be a JSON array of arguments: " + err.Error()})
		return
	}
	mt := m.Type()
	if len(raw) != mt.NumIn() {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("%s takes %d arguments, got %d", name, mt.NumIn(), len(raw))})
		return
	}
	args := make([]reflect.Value, len(raw))
	for i := range raw {
		p := reflect.New(mt.In(i))
		if err := json.Unmarshal(raw[i], p.Interface()); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("argument %d of %s: %v", i+1, name, err)})
			return
		}
		args[i] = p.Elem()
	}
	out := m.Call(args)
	var result any
	for _, v := range out {
		if v.Type() == reflect.TypeFor[error]() {
			if !v.IsNil() {
				writeError(w, v.Interface().(error))
				return
			}
			continue
		}
		result = v.Interface()
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": result})
}

func isExported(name string) bool { return name[0] >= 'A' && name[0] <= 'Z' }

func statusOf(err error) int {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, session.ErrBusy):
		return http.StatusConflict
	default:
		return http.StatusBadRequest
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// events streams every emitted event to one browser as Server-Sent Events.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	ch := make(chan []byte, 1024)
	s.mu.Lock()
	s.clients[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.clients, ch)
		s.mu.Unlock()
	}()
	fmt.Fprint(w, "retry: 1000\n: connected\n\n")
	flusher.Flush()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case msg, open := <-ch:
			if !open {
				return // too slow: the browser reconnects and reloads
			}
			fmt.Fprintf(w, "data: %s\n\n", msg)
			flusher.Flush()
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
			flusher.Flush()
		}
	}
}

// Emit implements Emitter.
func (s *Server) Emit(topic string, data any) {
	msg, err := json.Marshal(map[string]any{"topic": topic, "data": data})
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.clients {
		select {
		case ch <- msg:
		default:
			// A browser that cannot keep up is dropped rather than allowed to block the stream.
			close(ch)
			delete(s.clients, ch)
		}
	}
}
