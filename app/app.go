package app

import (
	"encoding/json"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// ProviderFactory builds the model provider for the given settings and says which base URL it
// talks to.
type ProviderFactory func(Settings) (p llm.Provider, baseURL string)

// App is the set of services bound to the user interface.
type App struct {
	Sessions *SessionService
	Chat     *ChatService
	Models   *ModelService
	Settings *SettingsService

	store     *store.Store
	unsubs    []func()
	closeOnce sync.Once
}

// New wires the services on one store. Events go to emit.
func New(st *store.Store, emit Emitter, factory ProviderFactory) *App {
	settings := NewSettingsService(st)
	providers := &providerCache{factory: factory}
	chat := &ChatService{store: st, providers: providers, settings: settings, emit: emit, running: map[string]*turn{}}
	a := &App{
		Sessions: &SessionService{store: st, emit: emit, chat: chat},
		Chat:     chat,
		Models:   &ModelService{providers: providers, settings: settings, emit: emit},
		Settings: settings,
		store:    st,
	}
	settings.onUpdate(func(Settings) { go a.Models.Status() })
	// The UI hears of every event once it is durable.
	a.unsubs = append(a.unsubs, st.Subscribe(func(ev store.Event) {
		emit.Emit(SessionTopic(ev.Session), SessionMessage{Kind: "event", Event: ev})
		if ev.Type == store.EventUser || ev.Type == store.EventAssistant {
			a.Sessions.announce() // order by last activity changed
		}
	}))
	return a
}

// Services returns the services in the order they are bound, keyed by their type name.
func (a *App) Services() map[string]any {
	return map[string]any{
		"SessionService":  a.Sessions,
		"ChatService":     a.Chat,
		"ModelService":    a.Models,
		"SettingsService": a.Settings,
	}
}

// Close stops every reply (recording the interruption) and detaches from the store. The store
// itself belongs to the caller.
func (a *App) Close() {
	a.closeOnce.Do(func() {
		a.Chat.Shutdown()
		for _, u := range a.unsubs {
			u()
		}
	})
}

// providerCache keeps one provider per distinct settings, so a settings change takes effect
// on the next call without restarting.
type providerCache struct {
	factory ProviderFactory
	mu      sync.Mutex
	key     Settings
	p       llm.Provider
	baseURL string
}

func (c *providerCache) get(s Settings) (llm.Provider, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.DefaultModel = "" // not part of the provider's identity
	if c.p == nil || c.key != s {
		c.p, c.baseURL = c.factory(s)
		c.key = s
	}
	return c.p, c.baseURL
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
