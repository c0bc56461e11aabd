// The one place that knows how the front end reaches Go: the Wails bindings inside the desktop
// window, or HTTP + Server-Sent Events under `tofu serve`. See docs/API.md.
import type { ServiceCall } from './services.gen'
import type { DayReport, MyDaySchedule } from './myday'
import type { ScheduleJob } from './schedule'
import type { BridgeConfig, BridgeInfo } from './platforms'
import type { PlatformForm } from './bridgeform'
import type { FamilyMode } from './toolbar'
import type { UndoPlan } from './checkpoints'
import { toBase64 } from './papers'
import type { LocalModels, PullPlan } from './protocol.gen'
import type { AgentMode, Attachment, Decision, Event, HistoryMatch, ImagesCheck, McpPrompt, McpResource, McpServer, McpServerConfig, McpSource, MemoryFound, MemoryRecord, ModelStatus, Skill, PaperInfo, PaperView, ProviderCheck, ProviderConfig, SessionInfo, Settings, ToolFamilyState, Translation } from './types'

type Listener = (data: unknown) => void

type WailsRuntime = {
  EventsOn: (topic: string, cb: Listener) => (() => void) | void
  EventsOff: (topic: string, ...more: string[]) => void
  BrowserOpenURL?: (url: string) => void
  Quit?: () => void
  ClipboardSetText?: (text: string) => Promise<boolean>
}

type WailsWindow = {
  go?: { app?: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> }
  runtime?: WailsRuntime
}

/** An API call that failed: `status` is the HTTP status (0 when the server was not reached). */
export class ApiError extends Error {
  status: number
  constructor(message: string, status: number) {
    super(message)
    this.name = 'ApiError'
    this.status = status
  }
}

export interface Transport {
  readonly kind: 'wails' | 'http'
  call(service: string, method: string, args: unknown[]): Promise<unknown>
  subscribe(topic: string, cb: Listener): () => void
}

const TOKEN_KEY = 'tofu_token'

/** The token in an address: `#token=` (what `tofu serve` prints; a fragment is never sent to a
 * server), or `?token=` (older addresses). */
function tokenIn(url: URL): string {
  return new URLSearchParams(url.hash.slice(1)).get('token') || url.searchParams.get('token') || ''
}

/**
 * Reads the token from the address bar once, keeps it in sessionStorage (per origin, so per
 * port: no other local server's page can read it) and removes it from the visible URL (so it
 * does not end up in screenshots, history or bookmarks). It is sent only as the X-Tofu-Token
 * header: there is no cookie, which the browser would send to every port of the host.
 */
export function takeToken(win: Window = window): string {
  let token = ''
  try {
    const url = new URL(win.location.href)
    const fromUrl = tokenIn(url)
    if (fromUrl) {
      token = fromUrl
      win.sessionStorage.setItem(TOKEN_KEY, fromUrl)
      url.searchParams.delete('token')
      const hash = new URLSearchParams(url.hash.slice(1))
      if (hash.has('token')) {
        hash.delete('token')
        url.hash = hash.toString()
      }
      win.history.replaceState(win.history.state, '', url.pathname + url.search + url.hash)
    } else {
      token = win.sessionStorage.getItem(TOKEN_KEY) ?? ''
    }
  } catch {
    // sessionStorage can be unavailable (privacy modes): the token lives in this page only.
  }
  return token
}

/** A new address pasted into an open tab (a restarted `tofu serve`) changes only the fragment,
 * which does not reload the page: take its token and start again. */
function watchForNewToken(win: Window) {
  win.addEventListener('hashchange', () => {
    if (tokenIn(new URL(win.location.href))) {
      takeToken(win)
      win.location.reload()
    }
  })
}

/** The part of an EventSource the transport uses. */
export type EventStream = {
  onmessage: ((e: MessageEvent) => void) | null
  onopen: (() => void) | null
  close(): void
}

/**
 * Server-Sent Events over fetch, so the stream carries the X-Tofu-Token header like every
 * call (an EventSource cannot send headers, and the token must not ride in a URL or a
 * cookie). It reconnects after `retry` ms (the server's `retry:` field) when the stream ends or
 * fails, and calls onopen at each connection.
 */
export class FetchEventStream implements EventStream {
  onmessage: ((e: MessageEvent) => void) | null = null
  onopen: (() => void) | null = null
  private retry = 1000
  private abort = new AbortController()
  private closed = false

  constructor(
    private url: string,
    private headers: Record<string, string>,
    private fetchFn: typeof fetch = (...a) => fetch(...a),
  ) {
    void this.loop()
  }

  close() {
    this.closed = true
    this.abort.abort()
  }

  private async loop() {
    while (!this.closed) {
      try {
        const res = await this.fetchFn(this.url, {
          headers: { ...this.headers, Accept: 'text/event-stream' },
          cache: 'no-store',
          signal: this.abort.signal,
        })
        if (res.ok && res.body) {
          this.onopen?.()
          await this.read(res.body)
        }
      } catch {
        // a failed or aborted connection: try again below, unless closed
      }
      if (this.closed) return
      await new Promise((r) => setTimeout(r, this.retry))
    }
  }

  private async read(body: ReadableStream<Uint8Array>) {
    const reader = body.getReader()
    const decoder = new TextDecoder()
    let buf = ''
    let data: string[] = []
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buf += decoder.decode(value, { stream: true })
      let nl: number
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1))
        if (line === '') {
          if (data.length) this.onmessage?.(new MessageEvent('message', { data: data.join('\n') }))
          data = []
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
        } else if (line.startsWith('retry:')) {
          const ms = Number(line.slice(6).trim())
          if (Number.isFinite(ms) && ms > 0) this.retry = ms
        }
      }
    }
  }
}

/** Listeners per topic, fed by one upstream source. */
class Topics {
  private map = new Map<string, Set<Listener>>()
  add(topic: string, cb: Listener): { first: boolean; remove: () => boolean } {
    let set = this.map.get(topic)
    const first = !set
    if (!set) {
      set = new Set()
      this.map.set(topic, set)
    }
    set.add(cb)
    return {
      first,
      remove: () => {
        set.delete(cb)
        if (set.size === 0 && this.map.get(topic) === set) {
          this.map.delete(topic)
          return true
        }
        return false
      },
    }
  }
  emit(topic: string, data: unknown) {
    for (const cb of [...(this.map.get(topic) ?? [])]) {
      try {
        cb(data)
      } catch (err) {
        console.error(`listener for ${topic} failed`, err)
      }
    }
  }
  get size() {
    return this.map.size
  }
}

export class HttpTransport implements Transport {
  readonly kind = 'http' as const
  private topics = new Topics()
  private source: EventStream | null = null
  private wasOpen = false

  constructor(
    private token: string,
    private fetchFn: typeof fetch = (...a) => fetch(...a),
    private makeSource: (url: string, headers: Record<string, string>) => EventStream = (url, headers) =>
      new FetchEventStream(url, headers, fetchFn),
  ) {}

  /** The headers every request to the API carries (the PDF reader's requests too). */
  headers(): Record<string, string> {
    return this.token ? { 'X-Tofu-Token': this.token } : {}
  }

  /** Sends a PDF as the raw request body (no base64, no size cap of a JSON call). */
  async uploadPaper(file: Blob, name: string, password: string): Promise<PaperInfo> {
    const headers: Record<string, string> = { 'Content-Type': 'application/pdf', ...this.headers() }
    if (password) headers['X-Tofu-Password'] = password
    let res: Response
    try {
      res = await this.fetchFn(`/api/paper/import?name=${encodeURIComponent(name)}`, {
        method: 'POST', headers, body: file, credentials: 'same-origin',
      })
    } catch (err) {
      throw new ApiError(`cannot reach the Tofu backend (${String(err)})`, 0)
    }
    const parsed = (await res.json().catch(() => ({}))) as { result?: PaperInfo; error?: string }
    if (!res.ok || !parsed.result) throw new ApiError(parsed.error ?? `upload failed (HTTP ${res.status})`, res.status)
    return parsed.result
  }

  async call(service: string, method: string, args: unknown[]): Promise<unknown> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...this.headers() }
    let res: Response
    try {
      res = await this.fetchFn(`/api/call/${service}.${method}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(args),
        credentials: 'same-origin',
      })
    } catch (err) {
      throw new ApiError(`cannot reach the Tofu backend (${String(err)})`, 0)
    }
    const body = await res.text()
    let parsed: unknown = undefined
    try {
      parsed = body ? JSON.parse(body) : {}
    } catch {
      // A page that is not JSON: some other server (or a static preview) answered.
      throw new ApiError(`the server at ${location.origin} is not a Tofu backend (HTTP ${res.status})`, res.ok ? 0 : res.status)
    }
    const obj = (parsed ?? {}) as { result?: unknown; error?: unknown }
    if (!res.ok) {
      const msg =
        typeof obj.error === 'string' ? obj.error : obj.error ? JSON.stringify(obj.error) : `${service}.${method} answered HTTP ${res.status}`
      throw new ApiError(msg, res.status)
    }
    return obj.result
  }

  subscribe(topic: string, cb: Listener): () => void {
    const entry = this.topics.add(topic, cb)
    this.ensureSource()
    return () => {
      entry.remove()
    }
  }

  private ensureSource() {
    if (this.source) return
    const src = this.makeSource('/api/events', this.headers())
    this.source = src
    src.onmessage = (msg: MessageEvent) => {
      let parsed: { topic?: string; data?: unknown }
      try {
        parsed = JSON.parse(msg.data)
      } catch {
        return
      }
      if (parsed && typeof parsed.topic === 'string') this.topics.emit(parsed.topic, parsed.data)
    }
    src.onopen = () => {
      // After a reconnect the events in between were missed: tell the app to reload its state.
      if (this.wasOpen) this.topics.emit(RECONNECTED, null)
      this.wasOpen = true
    }
  }
}

export class WailsTransport implements Transport {
  readonly kind = 'wails' as const
  private topics = new Topics()
  private off = new Map<string, () => void>()
  constructor(private win: WailsWindow) {}

  async call(service: string, method: string, args: unknown[]): Promise<unknown> {
    const fn = this.win.go?.app?.[service]?.[method]
    if (typeof fn !== 'function') throw new ApiError(`${service}.${method} is not bound`, 0)
    try {
      return await fn(...args)
    } catch (err) {
      throw new ApiError(err instanceof Error ? err.message : String(err), 500)
    }
  }

  subscribe(topic: string, cb: Listener): () => void {
    const entry = this.topics.add(topic, cb)
    const rt = this.win.runtime
    if (entry.first && rt) {
      // One Wails listener per topic: EventsOff(topic) would drop every listener of the topic.
      const un = rt.EventsOn(topic, (data: unknown) => this.topics.emit(topic, data))
      this.off.set(topic, typeof un === 'function' ? un : () => rt.EventsOff(topic))
    }
    return () => {
      if (entry.remove()) {
        this.off.get(topic)?.()
        this.off.delete(topic)
      }
    }
  }
}

/** Pseudo-topic emitted after the event stream reconnected. */
export const RECONNECTED = 'bridge:reconnected'

function pickTransport(): Transport {
  const w = (typeof window !== 'undefined' ? window : {}) as unknown as WailsWindow
  if (w.go?.app) return new WailsTransport(w)
  if (typeof window === 'undefined') return new HttpTransport('')
  watchForNewToken(window)
  return new HttpTransport(takeToken())
}

/**
 * Ctrl+Q (⌘Q): quits the desktop window through Wails' runtime. In a browser (`tofu serve`)
 * the key is the browser's, and this returns false.
 */
export function quitWindow(win: unknown = typeof window !== 'undefined' ? window : undefined): boolean {
  const quit = (win as WailsWindow | undefined)?.runtime?.Quit
  if (typeof quit !== 'function') return false
  quit()
  return true
}

/** The quit chord: Ctrl+Q, or ⌘Q, alone. */
export function isQuitKey(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>): boolean {
  return (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'q'
}

let transport: Transport | null = null
function t(): Transport {
  transport ??= pickTransport()
  return transport
}

/** For tests: replace the transport. */
export function setTransport(x: Transport | null) {
  transport = x
}

/** A turn a memory record was recalled into (MemoryService.Uses). */
export type MemoryUse = { session: string; title: string; seq: number; time: string }

/** call reaches one Go method: route is `Service.Method` as services.gen.ts lists them, so a
 * misspelled or removed method fails the type-check. */
function call<T>(route: ServiceCall, ...args: unknown[]): Promise<T> {
  const dot = route.indexOf('.')
  return t().call(route.slice(0, dot), route.slice(dot + 1), args) as Promise<T>
}

export const api = {
  sessions: {
    list: async () => (await call<SessionInfo[] | null>('SessionService.List')) ?? [],
    create: (title = '') => call<SessionInfo>('SessionService.Create', title),
    rename: (id: string, title: string) => call<void>('SessionService.Rename', id, title),
    delete: (id: string) => call<void>('SessionService.Delete', id),
    /** Removes the conversation only if it is still an untouched "New conversation". */
    discard: (id: string) => call<void>('SessionService.Discard', id),
    transcript: async (id: string) => (await call<Event[] | null>('SessionService.Transcript', id)) ?? [],
    /** Messages of every conversation matching the query, best first, with snippets. */
    search: async (query: string) => (await call<HistoryMatch[] | null>('SessionService.Search', query)) ?? [],
    /** An existing directory (resolved to absolute by Go); '' clears it. */
    setWorkspace: (id: string, dir: string) => call<void>('SessionService.SetWorkspace', id, dir),
    /** The window's native folder dialog: the chosen path, or '' when cancelled. Fails in a browser. */
    chooseWorkspace: () => call<string>('SessionService.ChooseWorkspace'),
    /** 'chat' or 'autonomous': how the session's agent turns run. */
    setMode: (id: string, mode: AgentMode) => call<void>('SessionService.SetMode', id, mode),
    /** Translate-then-reason for the session (SessionInfo.translate). */
    setTranslate: (id: string, on: boolean) => call<void>('SessionService.SetTranslate', id, on),
    /** Memory recall before the session's turns (SessionInfo.recall_off is its opposite). */
    setRecall: (id: string, on: boolean) => call<void>('SessionService.SetRecall', id, on),
    /** The session's thinking level (SessionInfo.thinking; "" follows the settings). */
    setThinking: (id: string, level: string) => call<void>('SessionService.SetThinking', id, level),
    /** The Tools menu: the session's tool families, with the settings' safety switches applied. */
    toolFamilies: async (id: string) => (await call<ToolFamilyState[] | null>('SessionService.ToolFamilies', id)) ?? [],
    /** Turns a tool family off (or on again) in the session (SessionInfo.tools_off). */
    /** 'off', 'auto' (a deferred family's tools wait for tool_search) or 'on' (offered from the next request). */
    setToolFamilyMode: (id: string, family: string, mode: FamilyMode) => call<void>('SessionService.SetToolFamilyMode', id, family, mode),
    folders: async () => (await call<string[] | null>('SessionService.Folders')) ?? [],
    createFolder: (name: string) => call<void>('SessionService.CreateFolder', name),
    renameFolder: (from: string, to: string) => call<void>('SessionService.RenameFolder', from, to),
    /** Its conversations stay, out of any folder. */
    deleteFolder: (name: string) => call<void>('SessionService.DeleteFolder', name),
    /** '' takes the conversation out of any folder. */
    move: (id: string, folder: string) => call<void>('SessionService.Move', id, folder),
    setPinned: (id: string, pinned: boolean) => call<void>('SessionService.SetPinned', id, pinned),
    /** Delete with undo: hidden until restored (or purged after 30 days). */
    trash: (id: string) => call<void>('SessionService.Trash', id),
    restore: (id: string) => call<void>('SessionService.Restore', id),
    /** A new conversation with the log up to event upTo (0: all), linked to its source. */
    duplicate: (id: string, upTo = 0) => call<SessionInfo>('SessionService.Duplicate', id, upTo),
    /** The workspace's files the composer's @ offers (relative, hidden and ignored ones left out). */
    workspaceFiles: async (id: string) => (await call<string[] | null>('SessionService.WorkspaceFiles', id)) ?? [],
    /** /clear: a new, empty conversation with this one's settings. */
    clear: (id: string) => call<SessionInfo>('SessionService.Clear', id),
    /** A compact stand-in for the conversation, to send as context in another. */
    reference: (id: string) => call<string>('SessionService.Reference', id),
  },
  bridges: {
    /** The chat bridges of the settings, each with how it is doing (docs/BRIDGES.md). */
    list: async () => (await call<BridgeInfo[] | null>('BridgeService.List')) ?? [],
    /** Asks the bridge's platform who its token is. */
    test: (name: string) => call<string>('BridgeService.Test', name),
    /** The platforms a bridge can be, with the fields each asks for. */
    platforms: async () => (await call<PlatformForm[] | null>('BridgeService.Platforms')) ?? [],
    /** Adds the bridge or replaces its settings (checked; refused on without an allowed user),
     * keeping token in the keyring when one is given ('' keeps the kept one). */
    save: async (name: string, config: BridgeConfig, token = '') => (await call<BridgeInfo[] | null>('BridgeService.Save', name, config, token)) ?? [],
    /** Stops the bridge, takes it out of the settings, forgets its token. */
    remove: async (name: string) => (await call<BridgeInfo[] | null>('BridgeService.Remove', name)) ?? [],
  },
  skills: {
    /** The skills the agent sees in workspace ('' : global only) and globally. */
    list: async (workspace: string) => (await call<Skill[] | null>('SkillsService.List', workspace)) ?? [],
    /** Installs a zipped skill into the global folder; nothing in it runs. */
    install: async (file: File) => call<Skill>('SkillsService.Install', file.name, toBase64(new Uint8Array(await file.arrayBuffer()))),
    /** Installs a skill folder from its files (paths inside the dropped or chosen folder). */
    installFolder: (files: { path: string; data: Uint8Array }[]) =>
      call<Skill>('SkillsService.InstallFolder', files.map((f) => ({ path: f.path, data: toBase64(f.data) }))),
  },
  memory: {
    /** The workspace's records (none when '') and the global ones. */
    list: async (workspace: string) => (await call<MemoryRecord[] | null>('MemoryService.List', workspace)) ?? [],
    search: async (workspace: string, query: string) => (await call<MemoryFound[] | null>('MemoryService.Search', workspace, query)) ?? [],
    /** Creates the record when it has no id, else replaces its fields. */
    save: (workspace: string, r: MemoryRecord) => call<MemoryRecord>('MemoryService.Save', workspace, r),
    delete: (workspace: string, id: string) => call<void>('MemoryService.Delete', workspace, id),
    /** The turns the record was recalled into, newest first. */
    uses: async (id: string) => (await call<MemoryUse[] | null>('MemoryService.Uses', id)) ?? [],
  },
  chat: {
    send: (sessionID: string, text: string, model: string) => call<void>('ChatService.Send', sessionID, text, model),
    /** Send with context attached (MCP resources read by mcp.readResource). */
    sendAttached: (sessionID: string, text: string, model: string, attachments: Attachment[]) =>
      call<void>('ChatService.SendAttached', sessionID, text, model, attachments),
    /** Reads a picked, dropped or pasted file (base64) as an attachment: an image, or text
     * with its tokens counted. */
    attach: (name: string, data: string) => call<Attachment>('ChatService.Attach', name, data),
    /** Rejects with the reason the model cannot take these attachments (an image for a model
     * without vision), before anything is sent. */
    checkAttachments: (model: string, attachments: Attachment[]) => call<void>('ChatService.CheckAttachments', model, attachments),
    /** An image attachment's bytes as a data: URL (the transcript's thumbnail). */
    attachmentImage: (blob: string) => call<string>('ChatService.AttachmentImage', blob),
    retry: (sessionID: string, model: string) => call<void>('ChatService.Retry', sessionID, model),
    stop: (sessionID: string) => call<void>('ChatService.Stop', sessionID),
    streaming: async () => (await call<string[] | null>('ChatService.Streaming')) ?? [],
    /** Runs the agent on the log as it is: unfinished tool calls first. */
    continue: (sessionID: string, model: string) => call<void>('ChatService.Continue', sessionID, model),
    approve: (sessionID: string, callID: string, decision: Decision) => call<void>('ChatService.Approve', sessionID, callID, decision),
    answer: (sessionID: string, callID: string, text: string) => call<void>('ChatService.Answer', sessionID, callID, text),
    /** A file of the workspace mentioned with @, read as an attachment of the next message. */
    attachWorkspaceFile: (sessionID: string, path: string) => call<Attachment>('ChatService.AttachWorkspaceFile', sessionID, path),
    /** /compact: summarizes the earlier turns now, with the user's instruction for the summary. */
    compact: (sessionID: string, instruction: string, model: string) => call<void>('ChatService.Compact', sessionID, instruction, model),
    /** Withdraws a compaction: later requests send the raw messages again. Refused while a turn runs. */
    undoCompaction: (sessionID: string, compactionID: string) => call<void>('ChatService.UndoCompaction', sessionID, compactionID),
    /** A new version of the user message `seq` (a branch; the old one stays), then its reply. */
    edit: (sessionID: string, seq: number, text: string, model: string) => call<void>('ChatService.Edit', sessionID, seq, text, model),
    /** Another reply to the turn the event `seq` belongs to (a branch from its message). */
    regenerate: (sessionID: string, seq: number, model: string) => call<void>('ChatService.Regenerate', sessionID, seq, model),
    /** Shows the version of the conversation that starts with event `first`. */
    switchBranch: (sessionID: string, first: number) => call<void>('ChatService.SwitchBranch', sessionID, first),
    /** What undoing the file changes since the user message `seq` would do (diffs, conflicts). */
    planUndo: (sessionID: string, seq: number) => call<UndoPlan>('ChatService.PlanUndo', sessionID, seq),
    /** Undoes them; with conflicts nothing is written and the plan says why. */
    undoChanges: (sessionID: string, seq: number) => call<UndoPlan>('ChatService.UndoChanges', sessionID, seq),
  },
  models: {
    status: () => call<ModelStatus>('ModelService.Status'),
    /** "Try the demo": the built-in scripted model on loopback, the only provider until the demo is stopped, Settings are saved or Tofu restarts. */
    startDemo: () => call<ModelStatus>('ModelService.StartDemo'),
    /** Ends the demo: the configured providers answer again, its scratch workspace is removed. */
    stopDemo: () => call<ModelStatus>('ModelService.StopDemo'),
    /** Settings' "Test connection": one provider as edited, unsaved; keys typed, else those stored under saved. */
    testProvider: (p: ProviderConfig, saved: string, keys: string[]) => call<ProviderCheck>('ModelService.TestProvider', p, saved, keys),
    /** Lists the images provider's models as edited (key: typed, '' the stored one); generates nothing. */
    testImages: (images: { base_url?: string; model?: string }, key: string) => call<ImagesCheck>('ModelService.TestImages', images, key),
  },
  /** Settings' "Local models": the local Ollama's models; a pull's steps arrive on "models:pull" (PullProgress). */
  localModels: {
    status: () => call<LocalModels>('LocalModelService.Status'),
    /** A pull's size against this machine's memory, before it starts. */
    planPull: (name: string) => call<PullPlan>('LocalModelService.PlanPull', name),
    pull: (name: string, total: number) => call<void>('LocalModelService.Pull', name, total),
    /** What was downloaded stays: the next pull of the model resumes. */
    cancelPull: (name: string) => call<void>('LocalModelService.CancelPull', name),
    delete: (name: string) => call<void>('LocalModelService.Delete', name),
    /** Runs `ollama serve` (installed, not running) as Tofu's child: it stops with Tofu. */
    start: () => call<LocalModels>('LocalModelService.Start'),
  },
  settings: {
    get: () => call<Settings>('SettingsService.Get'),
    update: (s: Settings) => call<Settings>('SettingsService.Update', s),
    /** Stores a provider's API keys (several rotate on rate limits); an empty list removes them. */
    setAPIKeys: (provider: string, keys: string[]) => call<Settings>('SettingsService.SetAPIKeys', provider, keys),
    /** Stores a tool's API key ('images', 'brave'); '' removes it. Returned masked only. */
    setToolKey: (name: string, key: string) => call<Settings>('SettingsService.SetToolKey', name, key),
    clearBrowserData: () => call<void>('SettingsService.ClearBrowserData'),
  },
  browser: {
    /** Streams the session's active tab on the "browser:<session>" topic (BrowserFrame), until unwatch. */
    watch: (sessionID: string) => call<void>('BrowserService.Watch', sessionID),
    unwatch: (sessionID: string) => call<void>('BrowserService.Unwatch', sessionID),
    /** On: the agent's browser calls wait while the user clicks and types; off hands it back. */
    takeOver: (sessionID: string, on: boolean) => call<void>('BrowserService.TakeOver', sessionID, on),
    /** A click at (x, y) in the page's CSS pixels. */
    click: (sessionID: string, x: number, y: number) => call<void>('BrowserService.Click', sessionID, x, y),
    type: (sessionID: string, text: string, enter: boolean) => call<void>('BrowserService.Type', sessionID, text, enter),
    /** Keys pressed in the page: a chord such as "Tab", "Shift+Tab", "Control+a", "ArrowDown". */
    key: (sessionID: string, keys: string) => call<void>('BrowserService.Key', sessionID, keys),
    /** The mouse wheel at (x, y), turned by (dx, dy): CSS pixels of the page. */
    scroll: (sessionID: string, x: number, y: number, dx: number, dy: number) => call<void>('BrowserService.Scroll', sessionID, x, y, dx, dy),
  },
  mcp: {
    /** The servers of the settings with their state and tools (changes arrive on the "mcp" topic). */
    servers: async () => (await call<McpServer[] | null>('MCPService.Servers')) ?? [],
    /** "Test": restarts the server and answers once it connected or failed. */
    restart: (name: string) => call<McpServer>('MCPService.Restart', name),
    setEnabled: (name: string, on: boolean) => call<McpServer[]>('MCPService.SetEnabled', name, on),
    setTrusted: (name: string, on: boolean) => call<McpServer[]>('MCPService.SetTrusted', name, on),
    setToolEnabled: (name: string, tool: string, on: boolean) => call<McpServer[]>('MCPService.SetToolEnabled', name, tool, on),
    add: (name: string, server: McpServerConfig) => call<McpServer[]>('MCPService.Add', name, server),
    remove: (name: string) => call<McpServer[]>('MCPService.Remove', name),
    /** Claude Desktop's, Cursor's and the workspace's (.mcp.json) files that hold servers. */
    importSources: async (workspace: string) => (await call<McpSource[] | null>('MCPService.ImportSources', workspace)) ?? [],
    import: (path: string, names: string[]) => call<McpServer[]>('MCPService.Import', path, names),
    /** The servers' prompts, offered in the composer as /server:name. */
    prompts: async () => (await call<McpPrompt[] | null>('MCPService.Prompts')) ?? [],
    /** "/server:prompt arguments" → the prompt's text (arguments as name=value, or the one required value). */
    expandPrompt: (command: string) => call<string>('MCPService.ExpandPrompt', command),
    /** The connected servers' resources and templates (the composer's attach menu). */
    resources: async () => {
      const r = await call<{ resources: McpResource[] | null; errors?: string[] | null }>('MCPService.Resources')
      return { resources: r?.resources ?? [], errors: r?.errors ?? [] }
    },
    /** Reads a resource (a template filled with vars) as an attachment for chat.sendAttached. */
    readResource: (server: string, uri: string, vars: Record<string, string> | null = null) =>
      call<Attachment>('MCPService.ReadResource', server, uri, vars),
  },
  papers: {
    list: async () => (await call<PaperInfo[] | null>('PaperService.List')) ?? [],
    /** data is the PDF as base64 (Go's []byte in JSON). */
    importArxiv: (ref: string) => call<PaperInfo>('PaperService.ImportArxiv', ref),
    /** The window only: writes the report or a translation where the save dialog says; '' = cancelled. */
    saveExport: (id: string, what: 'report' | 'translation', lang: string) => call<string>('PaperService.SaveExport', id, what, lang),
    /** Imports a dropped or chosen PDF: in a browser as the raw body of one request (any size),
     * in the window through the bound method (bytes as base64; the window has no request cap). */
    upload: async (file: File, password = ''): Promise<PaperInfo> => {
      const tr = t()
      if (tr instanceof HttpTransport) return tr.uploadPaper(file, file.name, password)
      const data = toBase64(new Uint8Array(await file.arrayBuffer()))
      return password
        ? call<PaperInfo>('PaperService.ImportWithPassword', file.name, data, password)
        : call<PaperInfo>('PaperService.Import', file.name, data)
    },
    import: (name: string, data: string, password = '') =>
      password
        ? call<PaperInfo>('PaperService.ImportWithPassword', name, data, password)
        : call<PaperInfo>('PaperService.Import', name, data),
    open: (id: string) => call<PaperView>('PaperService.Open', id),
    /** Papers the desktop asked to show ("Open with Tofu", `tofu open`), each once: the paper or why not. */
    takeOpens: async () => (await call<{ id?: string; name: string; error?: string }[] | null>('PaperService.TakeOpens')) ?? [],
    delete: (id: string) => call<void>('PaperService.Delete', id),
    ask: (id: string, question: string, model: string) => call<string>('PaperService.Ask', id, question, model),
    report: (id: string, model: string) => call<string>('PaperService.Report', id, model),
    reportMarkdown: (id: string) => call<string>('PaperService.ReportMarkdown', id),
    translate: (id: string, lang: string, model: string) => call<void>('PaperService.Translate', id, lang, model),
    stopTranslate: (id: string) => call<void>('PaperService.StopTranslate', id),
    /** null when the paper has no translation into lang (yet). */
    translation: (id: string, lang: string) => call<Translation | null>('PaperService.Translation', id, lang),
    translationMarkdown: (id: string, lang: string) => call<string>('PaperService.TranslationMarkdown', id, lang),
  },
}

/** Traces, My Day and schedules (docs/TRACE.md, docs/MYDAY.md, docs/SCHEDULE.md). */
export const deskApi = {
  /** A conversation's trace in format ('tofu', 'openai-messages', 'mini-swe-agent'), as JSON text. */
  exportTrace: (id: string, format: string) => call<string>('SessionService.ExportTrace', id, format),
  /** The window's save dialog: the path written, or '' when cancelled. Fails in a browser. */
  saveTrace: (id: string, format: string) => call<string>('SessionService.SaveTrace', id, format),
  /** Builds (again) and stores the report of date ('' today). */
  generateDay: (date: string) => call<DayReport>('MyDayService.Generate', date),
  /** The stored report of date, or null when none was generated. */
  day: (date: string) => call<DayReport | null>('MyDayService.Report', date),
  /** Dates with a stored report, newest first. */
  pastDays: async () => (await call<string[] | null>('MyDayService.Past')) ?? [],
  /** The time the report is written each day ('' off), its next time and latest run. */
  mydaySchedule: () => call<MyDaySchedule>('MyDayService.Schedule'),
  /** Sets that time ('HH:MM' local, '' off); saved in the settings (myday_at). */
  setMyDayTime: (at: string) => call<MyDaySchedule>('MyDayService.SetTime', at),
  /** The scheduled jobs, the next due first. */
  jobs: async () => (await call<ScheduleJob[] | null>('ScheduleService.List')) ?? [],
  addJob: (j: Partial<ScheduleJob>) => call<ScheduleJob>('ScheduleService.Add', j),
  removeJob: (id: string) => call<void>('ScheduleService.Remove', id),
}

/** The headers a request to the API must carry (`tofu serve`'s token; none in the window):
 * for requests the bridge does not make itself, such as the PDF reader's. */
export function apiHeaders(): Record<string, string> {
  const tr = t()
  return tr instanceof HttpTransport ? tr.headers() : {}
}

/** Subscribes to a topic; returns the unsubscribe function. */
export function on(topic: string, cb: (data: unknown) => void): () => void {
  return t().subscribe(topic, cb)
}

export function transportKind(): 'wails' | 'http' {
  return t().kind
}

/** Opens a link outside the app: the system browser in the window, a new tab in a browser. */
export function openExternal(url: string) {
  const rt = (window as unknown as WailsWindow).runtime
  if (t().kind === 'wails' && rt?.BrowserOpenURL) rt.BrowserOpenURL(url)
  else window.open(url, '_blank', 'noopener,noreferrer')
}

export async function copyText(text: string): Promise<boolean> {
  const rt = (window as unknown as WailsWindow).runtime
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text)
      return true
    }
  } catch {
    // fall through to the Wails clipboard
  }
  if (rt?.ClipboardSetText) return rt.ClipboardSetText(text)
  return false
}
