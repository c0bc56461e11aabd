package app

import (
	"context"
	"github.com/tofu-research/tofu/backend/desktop"
	"net/http"
	"sync"

	"github.com/tofu-research/tofu/app/web"
	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/desk"
	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// ProviderFactory builds the model provider for a configuration (engine.ProviderFactory).
type ProviderFactory = engine.ProviderFactory

// GatewayFactory is the ProviderFactory of the real app (engine.GatewayFactory).
var GatewayFactory ProviderFactory = engine.GatewayFactory

// App is the set of services bound to the user interface.
type App struct {
	Sessions *SessionService
	Chat     *ChatService
	Models   *ModelService
	// LocalModels manages the local Ollama's models: list, pull, delete, start the server.
	LocalModels *LocalModelService
	Settings    *SettingsService
	Papers      *PaperService
	MCP         *MCPService
	Memory      *MemoryService
	Skills      *SkillsService
	MyDay       *MyDayService
	Schedule    *ScheduleService
	// Bridges are the chat apps Tofu answers in while it is open (docs/BRIDGES.md).
	Bridges *BridgeService
	// Runner builds and runs every turn: the window's (through Chat), `tofu run`'s and
	// `tofu chat`'s.
	Runner *session.Runner
	// Browser is the agent's Chromium (started on first use), in Tofu's own profile.
	Browser *browser.Manager
	// BrowserView is the window's live view of a session's tab, with "take over".
	BrowserView *BrowserService
	// Desktop is the connection to the X11 desktop, opened when a desktop tool first runs.
	Desktop *desktop.Manager

	// Engine is the assembled backend the services wrap (the commands use it alone).
	Engine *engine.Engine

	store     *store.Store
	mu        sync.Mutex
	dialogs   Dialogs // the window's dialogs; nil under `tofu serve`
	unsubs    []func()
	closeOnce sync.Once
}

// New builds the engine on one store and one settings service and wraps its parts in the
// services. Events go to emit.
func New(st *store.Store, emit Emitter, settings *SettingsService, factory ProviderFactory) *App {
	a := &App{Settings: settings, store: st}
	e := engine.New(engine.Options{Store: st, Emit: emit, Settings: settings.core, Factory: factory, Dialogs: a.currentDialogs})
	a.Engine, a.Runner, a.Browser, a.Desktop = e, e.Runner, e.Browser, e.Desktop
	a.Models = &ModelService{e.Models}
	a.LocalModels = newLocalModelService(settings, emit, func() { a.Models.Status() })
	settings.clearBrowser = e.Browser.ClearData
	a.BrowserView = &BrowserService{browser.NewView(e.Browser, emit.Emit)}
	a.MCP = &MCPService{e.MCP}
	a.Memory = &MemoryService{e.Memory}
	a.Skills = &SkillsService{e.Skills}
	a.MyDay = &MyDayService{e.MyDay}
	a.Schedule = &ScheduleService{e.Scheduler}
	a.Bridges = NewBridgeService(a)
	chat := &ChatService{store: st, runner: e.Runner, emit: emit}
	a.Chat = chat
	a.Sessions = &SessionService{e.Desk}
	a.Papers = &PaperService{lib: e.Library, chat: chat, settings: settings, Shelf: e.Shelf}
	// The UI hears of every event once it is durable.
	a.unsubs = append(a.unsubs, st.Subscribe(func(ev store.Event) {
		chat.settle(ev) // no streamed text may arrive after its reply
		emit.Emit(SessionTopic(ev.Session), SessionMessage{Kind: MessageEvent, Event: ev})
		if ev.Type == store.EventUser || ev.Type == store.EventAssistant {
			desk.Announce(a.Sessions.Desk) // order by last activity changed
		}
	}))
	return a
}

// Send writes a message another front end sends (`tofu chat`, a `tofu run` forwarded to this
// Tofu) and starts its turn, streamed to the window as the window's own turns are; the
// front end follows the session's topic and answers approvals through req.Prompt. It is the
// App's, not a service's: the page cannot call it.
func (a *App) Send(ctx context.Context, m session.Message, req session.Request) (session.Sent, error) {
	return a.Chat.send(ctx, m, req)
}

// StartTurn starts a turn on the session's log as it is (no new message: Send writes one),
// streamed to the window as the window's own turns are. It is the App's, not a service's:
// the page cannot call it.
func (a *App) StartTurn(ctx context.Context, req session.Request) (*session.Turn, error) {
	return a.Chat.startTurn(ctx, req)
}

// PaperHandler serves the paper routes (the PDF for pdf.js, exports) to the window's asset
// server; `tofu serve` mounts the same handler.
func (a *App) PaperHandler() http.Handler {
	return web.PaperRoutes(a.Papers.lib, a.store, library.Slots(a.Papers.Shelf))
}

// Services returns the services in the order they are bound, keyed by their type name.
func (a *App) Services() map[string]any {
	return map[string]any{
		"SessionService":    a.Sessions,
		"ChatService":       a.Chat,
		"ModelService":      a.Models,
		"LocalModelService": a.LocalModels,
		"SettingsService":   a.Settings,
		"PaperService":      a.Papers,
		"MCPService":        a.MCP,
		"MemoryService":     a.Memory,
		"SkillsService":     a.Skills,
		"MyDayService":      a.MyDay,
		"ScheduleService":   a.Schedule,
		"BridgeService":     a.Bridges,
		"BrowserService":    a.BrowserView,
	}
}

// Close stops every reply (recording the interruption) and detaches from the store. The store
// itself belongs to the caller.
func (a *App) Close() {
	a.closeOnce.Do(func() {
		browser.CloseView(a.BrowserView.View)
		a.Engine.Close()
		a.LocalModels.close()
		for _, u := range a.unsubs {
			u()
		}
	})
}
