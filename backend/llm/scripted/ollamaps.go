package scripted

import (
	"net/http"
	"slices"
	"time"

	"github.com/ollama/ollama/api"
)

// defaultKeepAlive is how long a real Ollama keeps a model loaded after a request
// (OLLAMA_KEEP_ALIVE's default).
const defaultKeepAlive = 5 * time.Minute

// markLoaded records that a chat loaded m, until keepAlive from now: nil means the default, a
// negative value forever, zero unloads it once the reply is done (here: at once).
func (s *Server) markLoaded(m Model, keepAlive *api.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded == nil {
		s.loaded = map[string]time.Time{}
	}
	d := defaultKeepAlive
	if keepAlive != nil {
		d = keepAlive.Duration
	}
	switch {
	case d == 0:
		delete(s.loaded, m.Name)
	case d < 0:
		s.loaded[m.Name] = time.Time{}
	default:
		s.loaded[m.Name] = time.Now().Add(d)
	}
}

// ollamaLoad answers a chat without messages as a real Ollama does: it loads the model (done
// reason "load"), or with keep_alive 0 unloads it ("unload").
func (s *Server) ollamaLoad(w http.ResponseWriter, m Model, keepAlive *api.Duration) {
	reason := "load"
	if keepAlive != nil && keepAlive.Duration == 0 {
		reason = "unload"
	}
	s.markLoaded(m, keepAlive)
	writeJSON(w, http.StatusOK, api.ChatResponse{Model: m.Name, CreatedAt: time.Now().UTC(),
		Message: api.Message{Role: "assistant"}, Done: true, DoneReason: reason})
}

// ollamaPS lists the loaded models, like GET /api/ps; a model whose keep-alive ran out is gone.
func (s *Server) ollamaPS(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	now := time.Now()
	var names []string
	for name, until := range s.loaded {
		if !until.IsZero() && now.After(until) {
			delete(s.loaded, name)
			continue
		}
		names = append(names, name)
	}
	expires := map[string]time.Time{}
	for _, n := range names {
		expires[n] = s.loaded[n]
	}
	s.mu.Unlock()
	slices.Sort(names)
	resp := api.ProcessResponse{Models: []api.ProcessModelResponse{}}
	for _, name := range names {
		m, ok := s.model(name)
		if !ok {
			continue
		}
		resp.Models = append(resp.Models, api.ProcessModelResponse{Name: m.Name, Model: m.Name, Size: m.Size,
			Digest: m.digest(), Details: ollamaDetails(m), ExpiresAt: expires[name]})
	}
	writeJSON(w, http.StatusOK, resp)
}
