// Package engine assembles Tofu's engine on one store and one set of settings: the model
// providers, the turn runner with its tool families, the agent's browser, the MCP servers,
// the desktop, the conversation index, memory, the paper library, My Day and the scheduler.
// The window's services (package app) wrap its parts; the commands (app/cli), `tofu mcp
// serve` and the evals use it directly. It knows nothing of the window.
package engine

import (
	"log"
	"path/filepath"
	"time"

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
	"github.com/tofu-research/tofu/backend/oneshot"
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
// API keys. The product uses GatewayFactory; tests may wrap it.
type ProviderFactory func(cfg config.Config, keys gateway.Keys) (llm.Provider, error)

// GatewayFactory is the ProviderFactory of the product: every configured provider behind
// the router (retries, key rotation, fallback).
func GatewayFactory(cfg config.Config, keys gateway.Keys) (llm.Provider, error) {
	return gateway.New(cfg, keys)
}

// Emitter sends an event to a user interface. Implementations must not block.
type Emitter interface {
	Emit(topic string, data any)
}

// ScheduleTopic is the event topic telling a user interface the scheduled jobs changed.
const ScheduleTopic = "schedule"

// Options are what an Engine is built from.
type Options struct {
	Store    *store.Store
	Emit     Emitter // events for a user interface (none: dropped)
	Settings *Settings
	Factory  ProviderFactory // nil: GatewayFactory
	// Dialogs are the window's file dialogs (nil, or a nil answer, without a window).
	Dialogs func() desk.Dialogs
}

// Engine is the assembled backend. Its parts are shared: the window's services wrap them
// and the commands call them.
type Engine struct {
	Store     *store.Store
	Settings  *Settings
	Providers *gateway.Cache
	Models    *models.Service
	Call      oneshot.Func // one logged model call (My Day, translation, the schedule's watch)
	Library   *library.Library
	Shelf     *library.Shelf
	Browser   *browser.Manager // the agent's Chromium (started on first use)
	MCP       *configured.Service
	Desktop   *desktop.Manager // the X11 desktop, opened when a desktop tool first runs
	History   *history.Index   // the full-text index of every conversation
	Memory    *memory.Panel
	Skills    *skills.Panel
	Runner    *session.Runner // builds and runs every turn
	MyDay     *myday.Panel
	Scheduler *schedule.Scheduler
	Desk      *desk.Desk // the conversations: folders, trash, switches

	// Agents are the coding agents a conversation's model may be.
	Agents *session.ExternalAgents
	spawn  *procgroup.Spawner // starts the coding agents the delegate tool runs
}

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}

// New assembles the engine.
func New(o Options) *Engine {
	if o.Factory == nil {
		o.Factory = GatewayFactory
	}
	if o.Emit == nil {
		o.Emit = nopEmitter{}
	}
	if o.Dialogs == nil {
		o.Dialogs = func() desk.Dialogs { return nil }
	}
	set, st, emit := o.Settings, o.Store, o.Emit
	set.moveBraveKey() // API keys never stay in config.json
	e := &Engine{Store: st, Settings: set, spawn: &procgroup.Spawner{}}
	e.Providers = &gateway.Cache{Config: set.Config, Generation: set.Generation,
		Build: func(cfg config.Config) (llm.Provider, error) { return o.Factory(cfg, set.Keys) }}
	e.Agents = &session.ExternalAgents{Spawner: e.spawn}
	e.Models = models.New(models.Options{
		Provider: e.Providers.Get, Factory: o.Factory, Config: set.Config, Keys: set.Keys,
		ImagesKey: func() string {
			c, _ := set.Config()
			return set.ToolKey("images", c)
		},
		DemoOn: set.DemoOn, SetDemo: set.SetDemo, Emit: emit.Emit,
		Agents: e.agentModels,
	})
	price := func(model string, u llm.Usage) float64 {
		cfg, err := set.Config()
		if err != nil {
			return 0
		}
		return session.Price(cfg, model, u)
	}
	e.Call = agent.OneShot{Log: st, Provider: e.Providers.Get, Price: price}.Call
	e.Library = library.New(st, library.Options{
		Provider: e.Providers.Get, Call: e.Call, DeleteSession: func(id string) error { return e.Desk.Delete(id) }, Emit: emit,
	})
	e.Browser = e.newBrowser()
	e.MCP = configured.New(configured.Options{
		File: set.File(), Config: set.Config, Changed: set.Changed, Emit: emit.Emit, Sandbox: e.commandSandbox,
	})
	set.OnUpdate(func() { configured.SettingsChanged(e.MCP) })
	e.Desktop = desktop.NewManager("")
	e.History = history.New(st)
	var mem *memory.Store
	if dataDir, err := store.DataDir(); err == nil { // global records; none without a home
		mem = memory.NewStore(filepath.Join(dataDir, "memory"))
	}
	cfgDir, _ := config.Dir() // the global AGENTS.md; none when there is no config directory
	// The swarm starts turns through the runner, which equips turns with the swarm's tools.
	var sw *swarm.Swarm
	e.Runner = session.New(session.Options{
		Store: st, Provider: e.Providers.Current, Config: set.Config,
		Approvals: permission.NewService(set.File()), ConfigDir: cfgDir, Augment: e.Library.Augment,
		Tools: []session.ToolFamily{e.mcpFamily(), families.Delegate(e.spawn, e.commandSandbox),
			families.Browser(e.Browser, e.webAccess), families.Web(set.Config, func(c config.Config) string { return set.ToolKey("brave", c) }),
			families.Desktop(e.Desktop, st, set.Config, func(id string) { e.Runner.Stop(id) }), func(reg *tools.Registry, spec session.Spec) (func(), error) {
				return sw.Family(reg, spec)
			}, func(reg *tools.Registry, spec session.Spec) (func(), error) {
				return nil, schedule.AddTools(reg, e.Scheduler, spec.Session)
			}, families.Images(set.Config, set.Keys, st)},
		Memory: mem, SkillsDir: skillsDir(cfgDir), History: e.History,
		Agents: e.Agents, // a conversation's model may be a coding agent
		// A message sent with the main model's replacement records the switch (session.Runner.Send).
		Switched: func() *store.Fallback { return models.Switched(e.Models) },
	})
	sw = swarm.New(swarm.Options{Store: st, Turns: e.Runner, Config: set.Config})
	e.Memory = memory.NewPanel(mem, st)
	e.Skills = skills.NewPanel(skillsDir(cfgDir))
	e.MyDay = newMyDay(st, e.Library, e.Call, set)
	e.Scheduler = newScheduler(st, e.Runner, e.Call, set, emit, e.MyDay)
	myday.SetScheduler(e.MyDay, e.Scheduler)
	followMyDaySetting(e.Scheduler, set)
	e.Desk = desk.New(desk.Options{Store: st, Emit: emit.Emit, Runner: e.Runner, Tabs: e.Browser,
		History: e.History, Config: set.Config, Dialogs: o.Dialogs})
	if err := desk.PruneStubs(st); err != nil {
		log.Printf("tofu: %v", err) // clutter, not a reason to refuse to start
	}
	if err := desk.PurgeTrash(st, time.Now().Add(-desk.TrashKeep)); err != nil {
		log.Printf("tofu: %v", err)
	}
	e.Shelf = library.NewShelf(library.ShelfOptions{
		Library: e.Library, Config: set.Config, Dialogs: func() library.SaveDialog {
			if d := o.Dialogs(); d != nil {
				return d
			}
			return nil
		}})
	set.OnUpdate(func() { go e.Models.Status() })
	return e
}

// agentModels are the installed coding agents, offered as a conversation's model.
func (e *Engine) agentModels() []llm.ModelInfo {
	var out []llm.ModelInfo
	for _, x := range e.Agents.Installed() {
		out = append(out, llm.ModelInfo{Name: x.ID, Provider: models.AgentProvider, Family: x.Label})
	}
	return out
}

// webAccess says whether the settings let the agent reach the web.
func (e *Engine) webAccess() bool {
	cfg, err := e.Settings.Config()
	return err == nil && cfg.WebAccess
}

// newBrowser is the agent's Chromium in Tofu's own profile.
func (e *Engine) newBrowser() *browser.Manager {
	return browser.New(browser.Options{ProfileDir: filepath.Join(e.Store.Dir(), "browser"), WebAccess: e.webAccess,
		Visible: func() bool {
			cfg, err := e.Settings.Config()
			return err == nil && cfg.BrowserVisible
		},
		// Chromium runs in the commands' sandbox (its own mount and PID namespaces, secret
		// places hidden), unless the user chose unconfined commands or there is none here.
		Sandbox: func() *sandbox.Boundary {
			cfg, err := e.Settings.Config()
			if err != nil {
				return nil
			}
			return session.CommandSandbox(cfg)
		}})
}

// skillsDir is the global skills folder in the config directory ("" without one).
func skillsDir(cfgDir string) string {
	if cfgDir == "" {
		return ""
	}
	return filepath.Join(cfgDir, "skills")
}

// Close stops every reply (recording the interruption), the servers and processes the engine
// started, and the index. The store itself belongs to the caller.
func (e *Engine) Close() {
	e.Runner.Shutdown()
	configured.Close(e.MCP)
	e.spawn.Close()
	e.Browser.Close()
	e.Desktop.Close()
	e.Library.Shutdown()
	models.Close(e.Models)
	e.History.Close()
}
