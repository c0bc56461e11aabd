package app

import (
	"context"
	"log"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/tofu-research/tofu/app/web"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/desk"
	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/mcp/configured"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/models"
	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/session/families"
	"github.com/tofu-research/tofu/backend/skills"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/swarm"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// ProviderFactory builds the model provider for a configuration; keys gives each provider's
// API keys. The app uses GatewayFactory; tests may wrap it.
type ProviderFactory func(cfg config.Config, keys gateway.Keys) (llm.Provider, error)

// GatewayFactory is the ProviderFactory of the real app: every configured provider behind
// the router (retries, key rotation, fallback).
func GatewayFactory(cfg config.Config, keys gateway.Keys) (llm.Provider, error) {
	return gateway.New(cfg, keys)
}

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

	store     *store.Store
	providers *gateway.Cache
	history   *history.Index     // SessionService.Search and the agent's conversation tools
	agents    *procgroup.Spawner // starts the coding agents the delegate tool runs
	mu        sync.Mutex
	dialogs   Dialogs // the window's dialogs; nil under `tofu serve`
	unsubs    []func()
	closeOnce sync.Once
}

// New wires the services on one store and one settings service. Events go to emit.
func New(st *store.Store, emit Emitter, settings *SettingsService, factory ProviderFactory) *App {
	settings.moveBraveKey() // API keys never stay in config.json
	providers := &gateway.Cache{Config: settings.config, Generation: settings.generation,
		Build: func(cfg config.Config) (llm.Provider, error) { return factory(cfg, settings.keys) }}
	price := func(model string, u llm.Usage) float64 {
		cfg, err := settings.config()
		if err != nil {
			return 0
		}
		return session.Price(cfg, model, u)
	}
	a := &App{Settings: settings, store: st, providers: providers, agents: &procgroup.Spawner{}}
	installed := &session.ExternalAgents{} // coding agents, offered as a conversation's model
	a.Models = &ModelService{models.New(models.Options{
		Provider: providers.Get, Factory: factory, Config: settings.config, Keys: settings.keys,
		ImagesKey: func() string {
			c, _ := settings.config()
			return settings.toolKey("images", c)
		},
		DemoOn: settings.demoOn, SetDemo: settings.setDemo, Emit: emit.Emit,
		Agents: func() []llm.ModelInfo {
			var out []llm.ModelInfo
			for _, x := range installed.Installed() {
				out = append(out, llm.ModelInfo{Name: x.ID, Provider: models.AgentProvider, Family: x.Label})
			}
			return out
		},
	})}
	a.LocalModels = newLocalModelService(settings, emit, func() { a.Models.Status() })
	// My Day, translation and the schedule's watch ask the model through one logged call.
	call := agent.OneShot{Log: st, Provider: providers.Get, Price: price}.Call
	lib := library.New(st, library.Options{
		Provider: providers.Get, Call: call, DeleteSession: func(id string) error { return a.Sessions.Delete(id) }, Emit: emit,
	})
	cfgDir, _ := config.Dir() // the global AGENTS.md; none when there is no config directory
	webAccess := func() bool {
		cfg, err := settings.config()
		return err == nil && cfg.WebAccess
	}
	a.Browser = browser.New(browser.Options{ProfileDir: filepath.Join(st.Dir(), "browser"), WebAccess: webAccess,
		Visible: func() bool {
			cfg, err := settings.config()
			return err == nil && cfg.BrowserVisible
		},
		// Chromium runs in the commands' sandbox (its own mount and PID namespaces, secret
		// places hidden), unless the user chose unconfined commands or there is none here.
		Sandbox: func() *sandbox.Boundary {
			cfg, err := settings.config()
			if err != nil {
				return nil
			}
			return session.CommandSandbox(cfg)
		}})
	settings.clearBrowser = a.Browser.ClearData
	a.BrowserView = &BrowserService{browser.NewView(a.Browser, emit.Emit)}
	a.MCP = newMCPService(settings, providers, emit)
	a.Desktop = desktop.NewManager("")
	hist := history.New(st) // SessionService.Search and the agent's conversation tools
	var mem *memory.Store
	if dataDir, err := store.DataDir(); err == nil { // global records; none without a home
		mem = memory.NewStore(filepath.Join(dataDir, "memory"))
	}
	// The swarm starts turns through the runner, which equips turns with the swarm's tools.
	var sw *swarm.Swarm
	a.Runner = session.New(session.Options{
		Store: st, Provider: providers.Current, Config: settings.config,
		Approvals: permission.NewService(settings.file), ConfigDir: cfgDir, Augment: lib.Augment,
		Tools: []session.ToolFamily{a.MCP.family(), families.Delegate(a.agents, func() *sandbox.Boundary { return commandSandbox(settings) }),
			families.Browser(a.Browser, webAccess), families.Web(settings.config, func(c config.Config) string { return settings.toolKey("brave", c) }),
			families.Desktop(a.Desktop, st, settings.config, func(id string) { a.Runner.Stop(id) }), func(reg *tools.Registry, spec session.Spec) (func(), error) {
				return sw.Family(reg, spec)
			}, func(reg *tools.Registry, spec session.Spec) (func(), error) {
				return nil, schedule.AddTools(reg, a.Schedule.Scheduler(), spec.Session)
			}, families.Images(settings.config, settings.keys, st)},
		Memory: mem, SkillsDir: skillsDir(cfgDir), History: hist,
		Agents: &session.ExternalAgents{Spawner: a.agents}, // a conversation's model may be a coding agent
		// A message sent with the main model's replacement records the switch (session.Runner.Send).
		Switched: func() *store.Fallback { return models.Switched(a.Models.Service) },
	})
	sw = swarm.New(swarm.Options{Store: st, Turns: a.Runner, Config: settings.config})
	a.Memory = &MemoryService{memory.NewPanel(mem, st)}
	a.Skills = &SkillsService{skills.NewPanel(skillsDir(cfgDir))}
	a.MyDay = newMyDayService(st, lib, call, settings)
	a.Schedule = newScheduleService(st, a.Runner, call, settings, emit, a.MyDay.reportOf)
	a.Bridges = NewBridgeService(a)
	myday.SetScheduler(a.MyDay.Panel, a.Schedule.s)
	followMyDaySetting(a.Schedule.s, settings)
	chat := &ChatService{store: st, runner: a.Runner, emit: emit}
	a.Chat = chat
	a.history = hist
	a.Sessions = &SessionService{desk.New(desk.Options{Store: st, Emit: emit.Emit, Runner: a.Runner, Tabs: a.Browser,
		History: hist, Config: settings.config, Dialogs: a.currentDialogs})}
	if err := desk.PruneStubs(st); err != nil {
		log.Printf("tofu: %v", err) // clutter, not a reason to refuse to start
	}
	if err := desk.PurgeTrash(st, time.Now().Add(-desk.TrashKeep)); err != nil {
		log.Printf("tofu: %v", err)
	}
	a.Papers = &PaperService{lib: lib, chat: chat, settings: settings, Shelf: library.NewShelf(library.ShelfOptions{
		Library: lib, Config: settings.config, Dialogs: func() library.SaveDialog {
			if d := a.currentDialogs(); d != nil {
				return d
			}
			return nil
		}})}
	settings.onUpdate(func() { go a.Models.Status() })
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

// skillsDir is the global skills folder in the config directory ("" without one).
func skillsDir(cfgDir string) string {
	if cfgDir == "" {
		return ""
	}
	return filepath.Join(cfgDir, "skills")
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

// History is the full-text index of every conversation (`tofu sessions search` forwarded to
// a running Tofu searches it).
func (a *App) History() *history.Index { return a.history }

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
		a.Runner.Shutdown()
		configured.Close(a.MCP.Service)
		browser.CloseView(a.BrowserView.View)
		a.agents.Close()
		a.Browser.Close()
		a.Desktop.Close()
		a.Papers.lib.Shutdown()
		models.Close(a.Models.Service)
		a.LocalModels.close()
		a.history.Close()
		for _, u := range a.unsubs {
			u()
		}
	})
}
