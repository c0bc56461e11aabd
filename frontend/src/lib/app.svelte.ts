// The application state and its actions. Components read fields and call methods; the rules
// (what a transcript shows, what the banner says) live in the pure modules next to this one.
import { t, type Key } from './i18n/index.svelte'
import { dataArrived, modelsArrived } from './startup'
import { ApiError, RECONNECTED, api, on, transportKind } from './bridge'
import { byActivity, isStub } from './sessions'
import { dequeue, edit, enqueue, putBack, takeNext, type Queues } from './queue'
import { bannerShown, firstRun, hasModel, modelBanner, sameModel } from './status'
import { DeltaBuffer } from './stream'
import { meterOf, tokenReport } from './tokens'
import { withMode, type FamilyMode } from './toolbar'
import { apply, emptyTranscript, project, withEvents, type TranscriptState } from './transcript'
import type { AgentMode, Attachment, Decision, ModelStatus, SessionInfo, SessionMessage, Settings, ToolFamilyState } from './types'

export type Connection = 'connecting' | 'ok' | 'down'
/** A problem shown in the banner; `about` names the action it is about (a later success of
 * that action clears it: a stale "could not set the workspace" must not outlive a working one). */
export type Notice = { message: string; hint?: string; about?: string }

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

class AppState {
  connection = $state<Connection>('connecting')
  connectionError = $state('')
  connectionStatus = $state(0)

  sessions = $state<SessionInfo[]>([])
  currentId = $state<string | null>(null)
  transcript = $state.raw<TranscriptState>(emptyTranscript)
  streaming = $state(false)
  sending = $state(false)

  status = $state<ModelStatus | null>(null)
  statusLoading = $state(false)
  settings = $state<Settings | null>(null)
  model = $state('')

  notice = $state<Notice | null>(null)
  settingsOpen = $state(false)
  memoryOpen = $state(false)
  /** Bumped to ask the composer to take focus. */
  focusTick = $state(0)

  items = $derived(project(this.transcript))
  current = $derived(this.sessions.find((s) => s.id === this.currentId) ?? null)
  /** The current session's workspace: set, its turns run the coding agent. */
  workspace = $derived(this.current?.workspace ?? '')
  /** How the current session's agent turns run (it matters once a workspace is set). */
  mode = $derived<AgentMode>(this.current?.mode === 'autonomous' ? 'autonomous' : 'chat')
  /** Translate-then-reason is on in the current conversation. */
  translate = $derived(this.current?.translate === true)
  /** Memory recall runs before the current conversation's turns: its own switch and the settings'. */
  recall = $derived(this.current?.recall_off !== true)
  recallEverywhere = $derived(this.settings?.memory_recall_off !== true)
  /** The current conversation's thinking level ("": the settings'). */
  thinking = $derived(this.current?.thinking ?? '')
  /** The current conversation's tool families (the toolbar's Tools and Search); none without a
   * workspace (a plain conversation has no tools). */
  families = $state<ToolFamilyState[]>([])
  /** Messages typed while a reply ran, per conversation, sent in order after it (queue.ts). */
  queues = $state<Queues>({})
  queued = $derived(this.currentId ? (this.queues[this.currentId] ?? []) : [])
  /** The sidebar's folders, in the user's order. */
  folders = $state<string[]>([])
  /** A short message at the bottom of the window, with an action (Undo); null: none. */
  toast = $state<{ message: string; action?: { label: string; run: () => void } } | null>(null)
  private toastTimer: ReturnType<typeof setTimeout> | undefined
  /** Text for the composer to insert at its cursor (a reference); bumped with insertTick. */
  insertText = $state('')
  insertTick = $state(0)
  /** Approvals and answers being sent, by call id (their buttons are disabled meanwhile). */
  answering = $state<Record<string, boolean>>({})
  banner = $derived(modelBanner(this.status, this.model))
  /** The first-run help the empty conversation shows while no model can answer (status.ts). */
  setup = $derived(firstRun(this.status))
  /** The banner as shown: not while the first-run help or the last turn's error says it. */
  shownBanner = $derived.by(() => {
    const last = this.items.at(-1)
    return bannerShown(this.banner, this.setup, last?.kind === 'error' ? last.error.kind : null, this.items.length === 0)
  })
  models = $derived(this.status?.models ?? [])
  /** The chosen model can think (its capabilities say so): the Enhance menu's thinking line. */
  modelThinks = $derived(this.models.find((m) => m.name === this.model)?.capabilities?.includes('thinking') === true)
  /** The log alone: a streamed delta replaces the transcript but keeps this array. */
  private events = $derived(this.transcript.events)
  /** Where the session's tokens went, per model call and per turn (tokens.ts). */
  tokens = $derived(tokenReport(this.events))
  /** The context meter of the last call; null before the first usage. */
  meter = $derived(
    meterOf(this.tokens.calls, (name) => {
      const m = this.models.find((x) => x.name === name)
      return m?.context_window || m?.context_length || 0
    }),
  )

  /** Shows a failure of an action in the banner. */
  private fail(about: string, message: string) {
    this.notice = { message, about }
  }

  /** The action succeeded: a banner about its earlier failure is stale. */
  private ok(...about: string[]) {
    if (this.notice?.about && about.includes(this.notice.about)) this.notice = null
  }

  private unsubs: (() => void)[] = []
  private unsubSession: (() => void) | null = null
  private loadToken = 0
  private buffer = new DeltaBuffer(
    (d) => {
      this.transcript = apply(this.transcript, { kind: 'delta', ...d })
    },
    undefined,
    // 20 updates a second look continuous for text, and each update costs the page a style,
    // layout, paint and commit pass whatever its size.
    50,
  )

  async start() {
    this.connection = 'connecting'
    // Asked for at once with the rest, not after them: the model server is the slowest to
    // answer, and the first paint waits for the picker (docs/PERFORMANCE.md). Its failure is
    // reported only once the connection is known to be up.
    const status = this.readStatus()
    try {
      const [sessions, settings, folders] = await Promise.all([api.sessions.list(), api.settings.get(), api.sessions.folders()])
      dataArrived()
      // A conversation created while the list was on its way (New conversation clicked at
      // once) is kept: the list was read before it existed.
      const listed = new Set(sessions.map((s) => s.id))
      this.sessions = byActivity([...sessions, ...this.sessions.filter((s) => !listed.has(s.id))])
      this.settings = settings
      this.folders = folders
      this.connection = 'ok'
      this.connectionError = ''
    } catch (err) {
      this.connection = 'down'
      this.connectionError = messageOf(err)
      this.connectionStatus = err instanceof ApiError ? err.status : 0
      return
    }
    this.subscribe()
    await Promise.all([this.sessions.length > 0 ? this.select(this.sessions[0].id) : null, status.then((apply) => apply())])
  }

  private subscribe() {
    for (const u of this.unsubs) u()
    this.unsubs = [
      on('sessions', (data) => {
        this.sessions = byActivity((data as SessionInfo[] | null) ?? [])
        if (this.currentId && !this.sessions.some((s) => s.id === this.currentId)) {
          void this.select(this.sessions[0]?.id ?? null)
        }
      }),
      on('models', (data) => this.setStatus(data as ModelStatus)),
      on('folders', (data) => (this.folders = (data as string[] | null) ?? [])),
      on(RECONNECTED, () => void this.resync()),
    ]
  }

  private async resync() {
    try {
      this.sessions = byActivity(await api.sessions.list())
    } catch {
      return
    }
    await this.select(this.currentId)
  }

  private setStatus(s: ModelStatus) {
    this.status = s
    if (!this.model) this.model = this.defaultModel()
  }

  private defaultModel(): string {
    const names = (this.status?.models ?? []).map((m) => m.name)
    // The open conversation's model only while a provider lists it (as select() does): one
    // gone with the demo, or with a provider removed, is not picked again for the next message.
    const own = this.current?.model
    if (own && (!this.status || hasModel(this.status.models, own))) return own
    for (const candidate of [this.status?.default_model, this.settings?.models?.main]) {
      if (candidate) return candidate
    }
    return names[0] ?? ''
  }

  /**
   * "Try the demo": the scripted model answers from now on, so it becomes the chosen model, and
   * the conversation works in the demo's scratch workspace, where the model shows a tool call
   * and an approval card.
   */
  async startDemo() {
    this.statusLoading = true
    try {
      this.status = await api.models.startDemo()
      this.model = this.status.default_model
      this.ok('demo')
      if (this.status.demo_workspace && (await this.newSession())) {
        const err = await this.setWorkspace(this.status.demo_workspace)
        if (err) this.fail('workspace', t('fail.with', { what: t('fail.setTheDemoWorkspace'), error: err }))
      }
      await this.loadSettings()
    } catch (err) {
      this.fail('demo', t('fail.with', { what: t('fail.startTheDemoModel'), error: messageOf(err) }))
    } finally {
      this.statusLoading = false
    }
  }

  /** Stops the demo: the configured providers answer again; a conversation left in the demo's
   * folder (removed now) goes back to plain chat. */
  async stopDemo() {
    this.statusLoading = true
    const demoFolder = this.status?.demo_workspace
    const demoModel = this.status?.default_model ?? ''
    try {
      this.status = await api.models.stopDemo()
      // The demo's model is gone with it: the picker says "No models" rather than keeping it
      // (the demo's conversation still names it), in the same frame as the status.
      const next = this.status.default_model || this.defaultModel()
      this.model = next && sameModel(next, demoModel) && !hasModel(this.status.models, next) ? '' : next
      if (demoFolder && this.workspace === demoFolder) await this.setWorkspace('')
      this.ok('demo')
      await this.loadSettings()
    } catch (err) {
      this.fail('demo', t('fail.with', { what: t('fail.stopTheDemo'), error: messageOf(err) }))
    } finally {
      this.statusLoading = false
    }
  }

  async refreshStatus() {
    ;(await this.readStatus())()
  }

  /** readStatus asks for the model status and resolves to the step that shows the answer. */
  private async readStatus(): Promise<() => void> {
    this.statusLoading = true
    try {
      const s = await api.models.status()
      modelsArrived()
      return () => {
        this.setStatus(s)
        this.ok('status')
      }
    } catch (err) {
      return () => this.fail('status', t('fail.with', { what: t('fail.readTheModelStatus'), error: messageOf(err) }))
    } finally {
      this.statusLoading = false
    }
  }

  async select(id: string | null) {
    this.dropStub(id)
    this.unsubSession?.()
    this.unsubSession = null
    this.buffer.discard()
    this.transcript = emptyTranscript
    this.streaming = false
    this.currentId = id
    const token = ++this.loadToken
    this.families = []
    if (!id) return
    void this.loadFamilies()
    const session = this.sessions.find((s) => s.id === id)
    if (session?.model && (!this.status || hasModel(this.status.models, session.model))) this.model = session.model

    this.unsubSession = on(`session:${id}`, (data) => {
      if (token === this.loadToken) this.onSessionMessage(data as SessionMessage)
    })
    try {
      const [events, streamingIds] = await Promise.all([api.sessions.transcript(id), api.chat.streaming()])
      if (token !== this.loadToken) return
      let view = withEvents(this.transcript, events)
      const streaming = streamingIds.includes(id)
      if (streaming) view = apply(view, { kind: 'stream', state: 'started' })
      this.transcript = view
      this.streaming = streaming
      this.ok('load')
      if (!streaming) void this.drain() // a queue left while this conversation was away
    } catch (err) {
      if (token === this.loadToken) this.fail('load', t('fail.with', { what: t('fail.loadTheConversation'), error: messageOf(err) }))
    }
  }

  private onSessionMessage(msg: SessionMessage) {
    if (!msg || typeof msg !== 'object') return
    switch (msg.kind) {
      case 'delta':
        this.streaming = true
        this.buffer.push(msg)
        return
      case 'event': {
        const type = msg.event?.type
        // The final event carries the whole text: pending deltas would only duplicate it.
        if (type === 'assistant' || type === 'error' || type === 'interrupted') this.buffer.discard()
        this.transcript = apply(this.transcript, msg)
        return
      }
      case 'reset':
        // The router re-runs the call: deltas not yet shown are void too.
        this.buffer.discard()
        this.transcript = apply(this.transcript, msg)
        return
      case 'stream':
        if (msg.state === 'started') this.streaming = true
        if (msg.state === 'ended') {
          this.buffer.discard()
          this.streaming = false
          if (msg.error) this.fail('reply', t('fail.replyStopped', { error: msg.error }))
        }
        this.transcript = apply(this.transcript, msg)
        // The next queued message goes once the reply has ended (not after a failure: the
        // queue waits for the user).
        // A fast reply can end before its Send call returns: the queue goes once it has.
        if (msg.state === 'ended' && !msg.error) {
          if (this.sending) this.drainAfterSend = true
          else void this.drain()
        }
        return
    }
  }

  /**
   * Leaving an untouched "New conversation" removes it: empty stubs do not pile up in the list
   * (Go also removes those a previous run left, when it starts).
   */
  private dropStub(next: string | null) {
    const prev = this.current
    if (!prev || prev.id === next || !isStub(prev) || this.transcript.events.length > 0 || this.streaming || this.sending) return
    this.sessions = this.sessions.filter((s) => s.id !== prev.id)
    api.sessions.discard(prev.id).catch(() => {})
  }

  /** Opens a conversation at one of its messages: scrolled into view and marked for a moment. */
  async jumpTo(id: string, seq: number) {
    if (this.currentId !== id) await this.select(id)
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => requestAnimationFrame(() => r(null)))
      const el = document.querySelector<HTMLElement>(`[data-seq="${seq}"]`)
      if (el) {
        el.scrollIntoView({ block: 'center' })
        el.classList.add('found')
        setTimeout(() => el.classList.remove('found'), 1600)
        return
      }
    }
  }

  /**
   * The conversation New conversation is creating, until it is open. A second ask meanwhile (a
   * second click, a message or a workspace typed before Go answered) gets that one: two would
   * both be opened in turn, and opening the second discards the first as an untouched stub,
   * under a message or workspace already on its way to it.
   */
  private creating: Promise<SessionInfo | null> | null = null

  async newSession(): Promise<SessionInfo | null> {
    if (this.creating) return this.creating
    // The current conversation is already a new, empty one: use it.
    if (isStub(this.current) && this.transcript.events.length === 0) {
      this.focusTick++
      return this.current
    }
    this.creating = this.create()
    try {
      return await this.creating
    } finally {
      this.creating = null
    }
  }

  /**
   * The conversation an action on "the open one" goes to: the one New conversation is creating
   * (the user asked for it, and the old one is still open until Go answers), else the open one,
   * else a new one.
   */
  private async openOrNew(): Promise<string | null> {
    if (this.currentId && !this.creating) return this.currentId
    return (await this.newSession())?.id ?? null // the one being created, if any
  }

  private async create(): Promise<SessionInfo | null> {
    // The composer takes the focus once the conversation is open, unless the user moved it
    // meanwhile: the workspace chip opened while Go answered would close under their typing.
    const focus = () => (typeof document === 'undefined' ? null : document.activeElement)
    const focused = focus()
    try {
      const s = await api.sessions.create('')
      if (!this.sessions.some((x) => x.id === s.id)) this.sessions = byActivity([s, ...this.sessions])
      this.ok('create')
      await this.select(s.id)
      const now = focus()
      if (now === focused || now === null || now === document.body) this.focusTick++
      return s
    } catch (err) {
      this.fail('create', t('fail.with', { what: t('fail.createAConversation'), error: messageOf(err) }))
      return null
    }
  }

  async rename(id: string, title: string) {
    const clean = title.trim()
    if (!clean) return
    const before = this.sessions
    this.sessions = this.sessions.map((s) => (s.id === id ? { ...s, title: clean } : s))
    try {
      await api.sessions.rename(id, clean)
      this.ok('rename')
    } catch (err) {
      this.sessions = before
      this.fail('rename', t('fail.with', { what: t('fail.rename'), error: messageOf(err) }))
    }
  }

  async remove(id: string) {
    try {
      await api.sessions.delete(id)
      this.ok('delete')
      this.sessions = this.sessions.filter((s) => s.id !== id)
      if (this.currentId === id) await this.select(this.sessions[0]?.id ?? null)
    } catch (err) {
      this.fail('delete', t('fail.with', { what: t('fail.delete'), error: messageOf(err) }))
    }
  }

  /** Queues a message typed while the reply runs; it is sent after the reply (drain). */
  enqueue(text: string): boolean {
    const id = this.currentId
    if (!id || !text.trim()) return false
    this.queues = enqueue(this.queues, id, text)
    return true
  }

  unqueue(queuedId: number) {
    if (this.currentId) this.queues = dequeue(this.queues, this.currentId, queuedId)
  }

  editQueued(queuedId: number, text: string) {
    if (this.currentId) this.queues = edit(this.queues, this.currentId, queuedId, text)
  }

  /** Sends the current conversation's next queued message when nothing runs in it. */
  private drainAfterSend = false
  private async drain() {
    const id = this.currentId
    if (!id || this.streaming || this.sending) return
    const taken = takeNext(this.queues, id)
    if (!taken) return
    this.queues = taken.rest
    if (!(await this.send(taken.next.text))) this.queues = putBack(this.queues, id, taken.next)
  }

  /** Shows a toast for a few seconds (a later one replaces it). */
  showToast(message: string, action?: { label: string; run: () => void }, ms = 8000) {
    clearTimeout(this.toastTimer)
    this.toast = { message, action }
    this.toastTimer = setTimeout(() => (this.toast = null), ms)
  }

  /** Runs a sidebar action; a failure goes to the banner. */
  private async desk(about: string, what: Key, fn: () => Promise<unknown>): Promise<boolean> {
    try {
      await fn()
      this.ok(about)
      return true
    } catch (err) {
      this.fail(about, t('fail.with', { what: t(what), error: messageOf(err) }))
      return false
    }
  }

  createFolder(name: string) {
    return this.desk('folder', 'fail.createTheFolder', () => api.sessions.createFolder(name))
  }
  renameFolder(from: string, to: string) {
    return this.desk('folder', 'fail.renameTheFolder', () => api.sessions.renameFolder(from, to))
  }
  deleteFolder(name: string) {
    return this.desk('folder', 'fail.deleteTheFolder', () => api.sessions.deleteFolder(name))
  }
  moveTo(id: string, folder: string) {
    this.sessions = this.sessions.map((s) => (s.id === id ? { ...s, folder } : s))
    return this.desk('move', 'fail.moveTheConversation', () => api.sessions.move(id, folder))
  }
  setPinned(id: string, pinned: boolean) {
    this.sessions = this.sessions.map((s) => (s.id === id ? { ...s, pinned } : s))
    return this.desk('pin', pinned ? 'fail.pinTheConversation' : 'fail.unpinTheConversation', () => api.sessions.setPinned(id, pinned))
  }

  /** Deletes with undo: the conversation goes to the trash and a toast offers Undo. */
  async trash(id: string, message: string) {
    const wasCurrent = this.currentId === id
    const ok = await this.desk('delete', 'fail.delete', () => api.sessions.trash(id))
    if (!ok) return
    this.sessions = this.sessions.filter((s) => s.id !== id)
    if (wasCurrent) await this.select(this.sessions[0]?.id ?? null)
    this.showToast(message, { label: 'Undo', run: () => void this.restore(id, wasCurrent) })
  }

  async restore(id: string, reopen = false) {
    this.toast = null
    const ok = await this.desk('delete', 'fail.restoreTheConversation', () => api.sessions.restore(id))
    if (!ok) return
    this.sessions = byActivity(await api.sessions.list())
    if (reopen) await this.select(id)
  }

  async duplicate(id: string, upTo = 0) {
    try {
      const s = await api.sessions.duplicate(id, upTo)
      this.ok('duplicate')
      this.sessions = byActivity(await api.sessions.list())
      await this.select(s.id)
    } catch (err) {
      this.fail('duplicate', t('fail.with', { what: t('fail.duplicate'), error: messageOf(err) }))
    }
  }

  /** Puts a compact reference of another conversation into the composer. */
  async referenceIn(id: string) {
    try {
      const text = await api.sessions.reference(id)
      this.insertText = text + '\n\n'
      this.insertTick++
      this.ok('reference')
    } catch (err) {
      this.fail('reference', t('fail.with', { what: t('fail.referenceTheConversation'), error: messageOf(err) }))
    }
  }

  /** Sends a message; returns false (and keeps the text for the composer) when it failed. */
  async send(text: string, attachments: Attachment[] = []): Promise<boolean> {
    const body = text.trim()
    if ((!body && attachments.length === 0) || this.sending || this.streaming) return false
    this.sending = true
    try {
      const id = await this.openOrNew()
      if (!id) return false
      try {
        if (attachments.length > 0) await api.chat.sendAttached(id, body, this.model, attachments)
        else await api.chat.send(id, body, this.model)
        this.ok('send', 'reply')
      } catch (err) {
        // Go records the message and why its turn could not start (the transcript shows the
        // error with Retry); only a message that was not recorded goes back to the composer.
        if (await this.recorded(id, body)) return true
        throw err
      } finally {
        // Send titles an untitled conversation after announcing the list: fetch the new title.
        void api.sessions.list().then((list) => (this.sessions = byActivity(list)), () => {})
      }
      return true
    } catch (err) {
      this.fail('send', t('fail.with', { what: t('fail.send'), error: messageOf(err) }))
      return false
    } finally {
      this.sending = false
      if (this.drainAfterSend) {
        this.drainAfterSend = false
        if (!this.streaming) queueMicrotask(() => void this.drain())
      }
    }
  }

  /** Whether the conversation's last user message is `text` (after a failed send). */
  private async recorded(id: string, text: string): Promise<boolean> {
    try {
      const events = await api.sessions.transcript(id)
      const last = [...events].reverse().find((e) => e.type === 'user')
      const data = last?.data as { text?: string } | undefined
      if (data?.text !== text) return false
      if (this.currentId === id) this.transcript = withEvents(this.transcript, events)
      return true
    } catch {
      return false
    }
  }

  async retry() {
    if (!this.currentId || this.streaming) return
    try {
      await api.chat.retry(this.currentId, this.model)
      this.ok('send', 'reply')
    } catch (err) {
      this.fail('send', t('fail.with', { what: t('fail.retry'), error: messageOf(err) }))
    }
  }

  /** Sends a new version of the user message `seq` (the old one stays, one < > away). */
  async editMessage(seq: number, text: string): Promise<boolean> {
    const body = text.trim()
    if (!this.currentId || this.streaming || !body) return false
    try {
      await api.chat.edit(this.currentId, seq, body, this.model)
      this.ok('send', 'reply')
      return true
    } catch (err) {
      this.fail('send', t('fail.with', { what: t('fail.edit'), error: messageOf(err) }))
      return false
    }
  }

  /** Asks for another reply to the turn of event `seq` (the old reply stays, one < > away). */
  async regenerate(seq: number) {
    if (!this.currentId || this.streaming) return
    try {
      await api.chat.regenerate(this.currentId, seq, this.model)
      this.ok('send', 'reply')
    } catch (err) {
      this.fail('send', t('fail.with', { what: t('fail.regenerate'), error: messageOf(err) }))
    }
  }

  /** /compact: summarizes the conversation's earlier turns now, with the user's instruction
   * for the summary (a turn of its own: the transcript shows its divider and notice). */
  async compact(instruction: string): Promise<boolean> {
    if (!this.currentId || this.streaming || this.sending) return false
    try {
      await api.chat.compact(this.currentId, instruction, this.model)
      this.ok('compact')
      return true
    } catch (err) {
      this.fail('compact', t('fail.with', { what: t('fail.compact'), error: messageOf(err) }))
      return false
    }
  }

  /** /clear: a new conversation with this one's settings (model, workspace, mode, switches). */
  async clear(): Promise<boolean> {
    const id = this.currentId
    if (!id) return (await this.newSession()) !== null
    try {
      const s = await api.sessions.clear(id)
      if (!this.sessions.some((x) => x.id === s.id)) this.sessions = byActivity([s, ...this.sessions])
      this.ok('clear')
      await this.select(s.id)
      this.focusTick++
      return true
    } catch (err) {
      this.fail('clear', t('fail.with', { what: t('fail.startANewConversation'), error: messageOf(err) }))
      return false
    }
  }

  /** /model without a name: the toolbar's model picker opens (ModelPicker watches the tick). */
  pickerTick = $state(0)

  /** Shows the version of the conversation that starts with event `first`. */
  async switchBranch(first: number) {
    if (!this.currentId || this.streaming) return
    try {
      await api.chat.switchBranch(this.currentId, first)
      this.ok('send')
    } catch (err) {
      this.fail('send', t('fail.with', { what: t('fail.switchVersions'), error: messageOf(err) }))
    }
  }

  /** Continue an agent turn: unfinished tool calls run first, then the model goes on. */
  async continueTurn() {
    if (!this.currentId || this.streaming) return
    try {
      await api.chat.continue(this.currentId, this.model)
      this.ok('send', 'reply')
    } catch (err) {
      this.fail('send', t('fail.with', { what: t('fail.continue'), error: messageOf(err) }))
    }
  }

  /** Answers an approval of the current conversation, or of one of its sub-agents' sessions. */
  async approve(callId: string, decision: Decision, session: string | null = this.currentId) {
    if (!session || this.answering[callId]) return
    this.answering = { ...this.answering, [callId]: true }
    try {
      await api.chat.approve(session, callId, decision)
      this.ok('approve')
    } catch (err) {
      this.fail('approve', t('fail.with', { what: t('fail.answerTheApproval'), error: messageOf(err) }))
    } finally {
      const { [callId]: _, ...rest } = this.answering
      this.answering = rest
    }
  }

  /** Answers the model's ask_human question; returns false when it failed. */
  async answer(callId: string, text: string): Promise<boolean> {
    if (!this.currentId) return false
    try {
      await api.chat.answer(this.currentId, callId, text)
      this.ok('answer')
      return true
    } catch (err) {
      this.fail('answer', t('fail.with', { what: t('fail.sendTheAnswer'), error: messageOf(err) }))
      return false
    }
  }

  /** The window has a native folder dialog; a browser types the path. */
  get canPickFolder(): boolean {
    return transportKind() === 'wails'
  }

  /**
   * Sets the workspace of the current conversation (creating one if there is none); '' clears
   * it. Returns null on success, else Go's message (the chip shows it inline).
   */
  async setWorkspace(dir: string): Promise<string | null> {
    const id = await this.openOrNew()
    if (!id) return t('fail.createAConversation')
    try {
      await api.sessions.setWorkspace(id, dir.trim())
      this.ok('workspace')
      this.sessions = byActivity(await api.sessions.list())
      void this.loadFamilies()
      return null
    } catch (err) {
      return messageOf(err)
    }
  }

  /** Sets how the current conversation's agent turns run; Go's message is shown if it refuses. */
  async setMode(mode: AgentMode) {
    const id = this.currentId
    if (!id || mode === this.mode) return
    try {
      await api.sessions.setMode(id, mode)
      this.ok('mode')
      this.sessions = byActivity(await api.sessions.list())
    } catch (err) {
      this.fail('mode', t('fail.with', { what: t('fail.changeTheMode'), error: messageOf(err) }))
    }
  }

  /** Turns translate-then-reason on or off in the current conversation. */
  async setTranslate(on: boolean) {
    const id = this.currentId
    if (!id || on === this.translate) return
    try {
      await api.sessions.setTranslate(id, on)
      this.ok('translate')
      this.sessions = byActivity(await api.sessions.list())
    } catch (err) {
      this.fail('translate', t('fail.with', { what: t('fail.changeTranslation'), error: messageOf(err) }))
    }
  }

  /** Turns memory recall on or off in the current conversation. */
  async setRecall(on: boolean) {
    const id = this.currentId
    if (!id || on === this.recall) return
    try {
      await api.sessions.setRecall(id, on)
      this.ok('recall')
      this.sessions = byActivity(await api.sessions.list())
    } catch (err) {
      this.fail('recall', t('fail.with', { what: t('fail.changeMemoryRecall'), error: messageOf(err) }))
    }
  }

  /** Sets the current conversation's thinking level ("" follows the settings). */
  async setThinking(level: string) {
    const id = this.currentId
    if (!id || level === this.thinking) return
    try {
      await api.sessions.setThinking(id, level)
      this.ok('thinking')
      this.sessions = byActivity(await api.sessions.list())
    } catch (err) {
      this.fail('thinking', t('fail.with', { what: t('fail.changeTheThinkingLevel'), error: messageOf(err) }))
    }
  }

  private familiesVersion = 0
  /** Reads the current conversation's tool families again (a plain conversation has none). */
  async loadFamilies() {
    const id = this.currentId
    if (!id || !this.sessions.find((s) => s.id === id)?.workspace) {
      this.families = []
      return
    }
    const version = this.familiesVersion
    try {
      const fams = await api.sessions.toolFamilies(id)
      // A switch flipped meanwhile: this answer predates it.
      if (this.currentId === id && version === this.familiesVersion) this.families = fams
    } catch (err) {
      this.fail('tools', t('fail.with', { what: t('fail.readTheToolFamilies'), error: messageOf(err) }))
    }
  }

  /** Turns a tool family on (its tools offered from the next turn) or off in the current conversation. */
  setToolFamily(family: string, on: boolean) {
    return this.setToolFamilyMode(family, on ? 'on' : 'off')
  }

  /** Sets a family's mode in the current conversation: off, auto (a deferred family's tools
   * wait for tool_search) or on (offered from the next request). */
  async setToolFamilyMode(family: string, mode: FamilyMode) {
    const id = this.currentId
    if (!id) return
    const before = this.families
    this.familiesVersion++
    this.families = this.families.map((f) => (f.family === family ? withMode(f, mode) : f))
    try {
      await api.sessions.setToolFamilyMode(id, family, mode)
      this.ok('tools')
      this.sessions = byActivity(await api.sessions.list())
    } catch (err) {
      this.families = before
      this.fail('tools', t('fail.with', { what: t('fail.changeTheTools'), error: messageOf(err) }))
    }
  }

  /** Opens the native folder dialog and sets the chosen folder. */
  async chooseWorkspace() {
    try {
      const dir = await api.sessions.chooseWorkspace()
      if (!dir) return
      const err = await this.setWorkspace(dir)
      if (err) this.fail('workspace', t('fail.with', { what: t('fail.setTheWorkspace'), error: err }))
    } catch (err) {
      this.fail('workspace', t('fail.with', { what: t('fail.openTheFolderDialog'), error: messageOf(err) }))
    }
  }

  async stop() {
    if (!this.currentId || !this.streaming) return
    try {
      await api.chat.stop(this.currentId)
      this.ok('stop')
    } catch (err) {
      this.fail('stop', t('fail.with', { what: t('fail.stop'), error: messageOf(err) }))
    }
  }

  /** Reads the settings again (config.json may have been edited by hand); keeps the old on failure. */
  async loadSettings(): Promise<Settings | null> {
    try {
      this.settings = await api.settings.get()
    } catch {
      // The view shows what was read before; saving reports any real problem.
    }
    return this.settings
  }

  /**
   * Saves the configuration, then the API keys that changed (a provider must be saved before it
   * can hold keys). Returns null on success, else the error to show in the Settings view.
   */
  async saveSettings(s: Settings, keys: { provider: string; keys: string[] }[] = [], toolKeys: { name: string; key: string }[] = []): Promise<string | null> {
    const before = this.status?.default_model || this.settings?.models?.main || ''
    const modelWasDefault = !this.model || this.model === before
    try {
      this.settings = await api.settings.update(s)
    } catch (err) {
      return messageOf(err)
    }
    for (const k of keys) {
      try {
        this.settings = await api.settings.setAPIKeys(k.provider, k.keys)
      } catch (err) {
        return t('fail.keysNotStored', { provider: k.provider, error: messageOf(err) })
      }
    }
    for (const k of toolKeys) {
      try {
        this.settings = await api.settings.setToolKey(k.name, k.key)
      } catch (err) {
        return t('fail.toolKeyNotStored', { name: k.name, error: messageOf(err) })
      }
    }
    await this.refreshStatus()
    void this.loadFamilies() // Settings' safety switches (web access, desktop) may have changed
    // The main model is what the picker preselects, unless the user picked another one.
    if (modelWasDefault) {
      const main = this.status?.default_model || this.settings?.models?.main
      if (main) this.model = main
    }
    return null
  }
}

export const app = new AppState()
