// The transcript is a projection of the session's event log (plus the reply streaming right now).
// Pure functions only: components render what `project` returns.
import { t, type Key } from './i18n/index.svelte'
import { resultImages } from './images'
import type { CallAttempt, CallReport, DecidedBy, Decision, EndReason, Event, PhaseRole, PhaseState, ProviderError, SessionMessage, Usage, Verdict } from './types'
import type { Delta } from './stream'
import { argsOf } from './tools'
import { applySwarm, emptySwarm, type SwarmView } from './swarm'
import type { Swarm, ToolProgress } from './protocol.gen'
import { activePath, annotateBranches, treeOf, type BranchNav } from './branches'
import { filesChangedSince, recordedChanges } from './checkpoints'

/** A message's translation (`message_translation`): the user's message in English for the
 * model, or the reply in the user's language. `fallback` says why the original was used. */
export type TranslationNote = { text: string; from: string; to: string; fallback?: string }
/** Context attached to a user message (an MCP resource, a file, an image), shown as a chip or
 * a thumbnail (`blob`: its bytes in the store); its text is the
 * model's, not shown. */
export type AttachmentChip = { kind: string; server: string; uri: string; name: string; mimeType: string; size: number; blob?: string; tokens?: number; clipped?: boolean }
export type UserItem = {
  kind: 'user'
  key: string
  seq: number
  time: string
  text: string
  translation?: TranslationNote
  /** MCP resources attached to the message. */
  attachments?: AttachmentChip[]
  /** The first message after a fork of the conversation: which version of it this is. */
  branch?: BranchNav
  /** Files the agent changed since this message and not back as they were (checkpoints). */
  undo?: number
}
export type AssistantItem = {
  kind: 'assistant'
  key: string
  seq: number | null
  time: string
  text: string
  reasoning: string
  model?: string
  usage?: Usage
  streaming: boolean
  interrupted: boolean
  /** Streams re-run by the router before this reply (`retry` events). */
  retries?: number
  /** Another model answered (`fallback` event); `from` is the model asked for, `reason` why it
   * was left (its failure, or its open circuit), when known. */
  fallback?: FallbackNote
  /** The router's report of the call (`model_call` event). */
  call?: CallReport
  /** Live only: the stream broke and is re-run; the reason. Cleared when new text arrives. */
  retrying?: string
  /** Notes about the model call (`notice` events), e.g. a model without tool support. */
  notices?: string[]
  /** The tool calls of this reply, with their results and approvals. */
  tools?: ToolCallItem[]
  /** The reply in the user's language (translate-then-reason); `text` is the original. */
  translation?: TranslationNote
  /** Part of an agent turn: its tokens are summed in the turn's line instead. */
  agent?: boolean
  /** The text is a tool call the model printed instead of sending (`call_correction` follows):
   * not run and not an answer, so it is shown folded as what it is. */
  printed?: boolean
  /** The first message after a fork of the conversation: which version of it this is. */
  branch?: BranchNav
  /** The reply that ends its turn, nothing running: Regenerate is offered. */
  regenerate?: boolean
}

/**
 * running: the turn is executing it · waiting: it waits for the user's approval · ok / error:
 * its result · denied: the user or the policy refused it · interrupted: stopped while it ran ·
 * not_run: the turn ended (stop, crash, a new message) before it ran.
 */
export type ToolStatus = 'running' | 'waiting' | 'ok' | 'error' | 'denied' | 'interrupted' | 'not_run'

export type ApprovalInfo = {
  subject: string
  reason: string
  /** '' while asked; then the answer. */
  decision: Decision | ''
  /** Only "Allow once" can be offered (it reaches outside the workspace, or a protected place). */
  once?: boolean
  by: DecidedBy | ''
  /** pending: the turn waits for an answer · expired: the turn ended first (Continue asks again). */
  state: 'pending' | 'answered' | 'expired'
}

export type ToolResultInfo = {
  text: string
  isError: boolean
  meta: unknown
  durationMs: number
  interrupted: boolean
  /** Images the tool returned (generate_image, screenshots), base64. */
  images?: string[]
}

export type ToolCallItem = {
  id: string
  name: string
  args: Record<string, unknown>
  status: ToolStatus
  result?: ToolResultInfo
  approval?: ApprovalInfo
  /** spawn_agents: the live dashboard of its swarm (`swarm` events). */
  swarm?: SwarmView
  /** The autonomous run's phase that made the call: a call the policy blocks for the critic or
   * the planner (they only read) says so, not just "denied by policy". */
  phase?: PhaseRole
  /** The last progress report while it ran (`tool_progress`): an MCP server's notifications,
   * a delegated agent's steps. Kept after the result; the card shows it only while running. */
  progress?: ToolProgress
}

/** The end of an agent turn (`turn_end`) with the tokens of all its model calls. */
export type TurnItem = {
  kind: 'turn'
  key: string
  seq: number
  time: string
  /** '' when the log says nothing (an older Tofu). */
  reason: EndReason | ''
  steps: number
  detail: string
  tokens: { input: number; output: number; reasoning: number; calls: number }
  durationMs: number
  /** A limit ended it (not done, not stopped, not an error): offer Continue. */
  continuable: boolean
  /** Worker rounds of an autonomous run (0 for a chat turn). */
  rounds: number
}

/**
 * A marker of an autonomous run's phase (`phase` event): where a planner, a worker round or a
 * critic starts, and the critic's verdict where it ends.
 */
export type PhaseItem = {
  kind: 'phase'
  key: string
  seq: number
  time: string
  role: PhaseRole
  iteration: number
  state: PhaseState
  /** Critic end: what the run does next (after the gate). */
  verdict: Verdict | ''
  /** Critic end: the critic's own verdict when the gate overrode it, and why. */
  claimed: Verdict | ''
  gate: string
  feedback: string
}
export type ErrorItem = {
  kind: 'error'
  key: string
  seq: number
  time: string
  error: ProviderError
  /** Shown with a Retry action: the last item, nothing streaming, and Go did not rule it out. */
  retryable: boolean
  /** Go's verdict (`retryable` in the event); a bad request fails the same way again. */
  canRetry: boolean
  /** Agent turns go on with Continue (unfinished tool calls first); chat turns Retry. */
  action: 'retry' | 'continue'
}
export type InterruptedItem = {
  kind: 'interrupted'
  key: string
  seq: number
  time: string
  /** user, shutdown; "unfinished" when the log stops mid-turn (Tofu was killed). */
  reason: string
  retryable: boolean
  action: 'retry' | 'continue'
}
/**
 * An L2 compaction (`compaction` event): a summary stands for `messages` earlier messages in
 * later requests; the raw messages stay in the log. `compaction_undo` withdraws it.
 */
export type CompactionItem = {
  kind: 'compaction'
  key: string
  seq: number
  time: string
  id: string
  messages: number
  tokensBefore: number
  tokensAfter: number
  /** The request size above which compaction fires (0: unknown). */
  threshold: number
  /** auto (near the window), overflow (the model refused the request), manual. */
  trigger: string
  /** What the user asked of a /compact summary ("" : nothing, or an automatic one). */
  instruction: string
  model: string
  undone: boolean
  /** Undo is offered: not undone and no turn runs (Go refuses it while one does). */
  canUndo: boolean
}
export type Item = UserItem | AssistantItem | ErrorItem | InterruptedItem | TurnItem | PhaseItem | CompactionItem

export type TranscriptState = {
  events: Event[]
  /** The reply in flight, or null when nothing streams. */
  live: Delta | null
  /** The live stream was reset (`reset` message) and no new text arrived yet: the reason. */
  retrying?: string | null
  /** A turn runs (between `stream` started and ended), streaming or running tools. */
  running?: boolean
}

export const emptyTranscript: TranscriptState = { events: [], live: null }

type Obj = Record<string, unknown>
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x)
const str = (x: unknown): string => (typeof x === 'string' ? x : '')

/** The chips of a user message's attachments (`UserMessage.attachments`). */
function attachmentsOf(data: unknown): AttachmentChip[] {
  const list = isObj(data) && Array.isArray(data.attachments) ? data.attachments : []
  return list.filter(isObj).map((a) => ({
    kind: str(a.kind),
    server: str(a.server),
    uri: str(a.uri),
    name: str(a.name) || str(a.uri),
    mimeType: str(a.mime_type),
    size: typeof a.size === 'number' ? a.size : str(a.text).length,
    ...(str(a.blob) ? { blob: str(a.blob) } : {}),
    ...(typeof a.tokens === 'number' ? { tokens: a.tokens } : {}),
    ...(a.clipped === true ? { clipped: true } : {}),
  }))
}

/** A language's name in English from its ISO 639-1 code (the code when the browser knows none). */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code
  } catch {
    return code
  }
}

/**
 * Adds events, dropping duplicates (same seq) and keeping the log in order. An event without a
 * seq was never stored (Go reports a failed append that way): it is kept, after the log.
 */
export function withEvents(state: TranscriptState, events: Event[]): TranscriptState {
  if (events.length === 0) return state
  const seen = new Set(state.events.filter((e) => e.seq > 0).map((e) => e.seq))
  const added: Event[] = []
  for (const e of events) {
    if (e.seq > 0) {
      if (seen.has(e.seq)) continue
      seen.add(e.seq)
    }
    added.push(e)
  }
  if (added.length === 0) return state
  const all = [...state.events, ...added]
  const stored = all.filter((e) => e.seq > 0).sort((a, b) => a.seq - b.seq)
  const unstored = all.filter((e) => !(e.seq > 0))
  // A reply that has been appended ends the live stream.
  const ends = added.some((e) => e.type === 'assistant' || e.type === 'error' || e.type === 'interrupted')
  if (ends) return { ...state, events: [...stored, ...unstored], live: null, retrying: null }
  return { ...state, events: [...stored, ...unstored] }
}

/** Applies one message of the `session:<id>` topic. */
export function apply(state: TranscriptState, msg: SessionMessage): TranscriptState {
  switch (msg.kind) {
    case 'event':
      return withEvents(state, [msg.event])
    case 'delta': {
      const live = state.live ?? { text: '', reasoning: '' }
      const next = { ...state, live: { text: live.text + (msg.text ?? ''), reasoning: live.reasoning + (msg.reasoning ?? '') } }
      if (msg.text || msg.reasoning) next.retrying = null
      return next
    }
    case 'reset':
      // The router re-runs the call: everything streamed so far is void.
      return { ...state, live: { text: '', reasoning: '' }, retrying: msg.text || 'the stream broke' }
    case 'stream':
      if (msg.state === 'started') return { ...state, running: true, live: state.live ?? { text: '', reasoning: '' } }
      if (msg.state === 'ended') return state.live || state.retrying || state.running ? { ...state, live: null, retrying: null, running: false } : state
      return state
    default:
      return state
  }
}

function textOf(data: unknown): string {
  if (typeof data === 'string') return data
  if (!isObj(data)) return ''
  if (typeof data.text === 'string') return data.text
  if (typeof data.content === 'string') return data.content
  if (isObj(data.message)) return str(data.message.content)
  return ''
}

function reasoningOf(data: unknown): string {
  if (!isObj(data)) return ''
  if (typeof data.reasoning === 'string') return data.reasoning
  if (isObj(data.message)) return str(data.message.reasoning)
  return ''
}

/** Reads a ProviderError out of an `error` event's data, whatever its exact wrapping. */
export function errorOf(data: unknown): ProviderError {
  if (typeof data === 'string') return { kind: 'server', message: data }
  if (isObj(data)) {
    if (typeof data.message === 'string') {
      return {
        kind: str(data.kind) || 'server',
        message: data.message,
        hint: str(data.hint) || undefined,
        provider: str(data.provider) || undefined,
        status_code: typeof data.status_code === 'number' ? data.status_code : undefined,
      }
    }
    if (isObj(data.error) || typeof data.error === 'string') return errorOf(data.error)
  }
  return { kind: 'server', message: 'The reply failed.' }
}

function callOf(data: unknown): CallReport | undefined {
  if (!isObj(data)) return undefined
  const attempts = Array.isArray(data.attempts) ? (data.attempts.filter(isObj) as unknown as CallAttempt[]) : []
  return { ...(data as unknown as CallReport), model: str(data.model), target: str(data.target), outcome: str(data.outcome), attempts }
}

function usageOf(data: unknown): Usage | undefined {
  if (!isObj(data)) return undefined
  const u = isObj(data.usage) ? data.usage : data
  if (typeof u.input_tokens !== 'number' && typeof u.output_tokens !== 'number') return undefined
  return u as unknown as Usage
}

function toolCallsOf(data: unknown): { id: string; name: string; args: Record<string, unknown> }[] {
  if (!isObj(data) || !Array.isArray(data.tool_calls)) return []
  return data.tool_calls.filter(isObj).map((c) => ({ id: str(c.id), name: str(c.name), args: argsOf(c.arguments) }))
}

type CallState = ToolCallItem & {
  /** Will never run: the reply was cut off, or a later message superseded it. */
  final?: boolean
  /** A turn_end came while it had no result (a Continue may still run it). */
  closed?: boolean
}

function resultStatus(c: CallState): ToolStatus {
  const r = c.result!
  if (r.interrupted) return 'interrupted'
  if (c.approval?.decision === 'deny') return 'denied'
  return r.isError ? 'error' : 'ok'
}

export function project(state: TranscriptState): Item[] {
  const items: Item[] = []
  const running = !!state.running || !!state.live
  // The assistant message of the current turn: usage and interruptions attach to it.
  let turnAssistant: AssistantItem | null = null
  // The assistant message of the model call in progress: the call's report attaches to it.
  let callAssistant: AssistantItem | null = null
  // `retry` and `fallback` come before the reply they concern.
  let retries = 0
  let fallback: FallbackNote | null = null
  let notices: string[] = []
  const clearPending = () => {
    retries = 0
    fallback = null
    notices = []
  }
  // Tool calls since the last user message, by id (Continue runs them after a turn_end).
  let calls = new Map<string, CallState>()
  // The stretch of the log a turn_end closes: its replies, tokens and start.
  let segAssistants: AssistantItem[] = []
  let segTokens = { input: 0, output: 0, reasoning: 0, calls: 0 }
  let segStart = ''
  let segRounds = 0
  const newSegment = () => {
    segAssistants = []
    segTokens = { input: 0, output: 0, reasoning: 0, calls: 0 }
    segStart = ''
    segRounds = 0
  }
  // The log stops in the middle of an agent turn (results the model has not seen yet).
  let midTurn = false
  // The phase of an autonomous run the next calls belong to ('' outside one).
  let phaseRole: PhaseRole | '' = ''
  // Compaction markers by id, for their undo events.
  const compactions = new Map<string, CompactionItem>()

  // Only the active branch is shown (edited messages and regenerated replies are versions).
  const tree = treeOf(state.events)
  const path = activePath(state.events, tree)
  path.forEach((e, index) => {
    const key = e.seq > 0 ? `e${e.seq}` : `u${index}`
    if (!segStart) segStart = e.time
    switch (e.type) {
      case 'user':
        {
          const atts = attachmentsOf(e.data)
          items.push({ kind: 'user', key, seq: e.seq, time: e.time, text: textOf(e.data), ...(atts.length ? { attachments: atts } : {}) })
        }
        turnAssistant = null
        callAssistant = null
        {
          // A switch made at startup (before the message) concerns the reply to it.
          const startup = fallback?.startup ? fallback : null
          clearPending()
          fallback = startup
        }
        // A new message supersedes calls still without a result: they never run.
        for (const c of calls.values()) {
          if (c.result) continue
          c.status = 'not_run'
          if (c.approval && !c.approval.decision) c.approval.state = 'expired'
        }
        calls = new Map()
        newSegment()
        segStart = e.time
        midTurn = false
        phaseRole = ''
        break
      case 'assistant': {
        const d = isObj(e.data) ? e.data : {}
        const item: AssistantItem = {
          kind: 'assistant',
          key,
          seq: e.seq,
          time: e.time,
          text: textOf(e.data),
          reasoning: reasoningOf(e.data),
          model: str(d.model) || undefined,
          streaming: false,
          interrupted: d.interrupted === true,
        }
        // The critic's reply ends with its verdict for the harness ("VERDICT: STOP"); the marker
        // after it says the verdict in words.
        if (phaseRole === 'critic') item.text = item.text.replace(VERDICT_LINE, '')
        if (retries > 0) item.retries = retries
        if (fallback) item.fallback = { ...(fallback as FallbackNote) }
        if (notices.length) item.notices = notices
        clearPending()
        const tcs = toolCallsOf(e.data)
        if (item.text || item.reasoning || tcs.length > 0) {
          // A new reply: calls of earlier replies still without a result never run.
          for (const c of calls.values()) if (!c.result) c.final = true
        }
        if (tcs.length > 0) {
          item.tools = tcs.map((tc) => {
            const c: CallState = { ...tc, status: 'running', final: item.interrupted, ...(phaseRole ? { phase: phaseRole } : {}) }
            calls.set(tc.id, c)
            return c
          })
          item.agent = true
        }
        midTurn = tcs.length > 0 && !item.interrupted
        items.push(item)
        segAssistants.push(item)
        turnAssistant = item
        callAssistant = item
        break
      }
      case 'message_translation': {
        const d = isObj(e.data) ? e.data : {}
        const of = typeof d.of === 'number' ? d.of : -1
        const target = items.find((it) => (it.kind === 'user' || it.kind === 'assistant') && it.seq === of)
        if (target && (target.kind === 'user' || target.kind === 'assistant')) {
          target.translation = { text: str(d.text), from: str(d.from), to: str(d.to), fallback: str(d.fallback) || undefined }
        }
        break
      }
      case 'tool_result': {
        const d = isObj(e.data) ? e.data : {}
        const c = calls.get(str(d.call_id))
        if (c) {
          c.result = {
            text: str(d.text),
            isError: d.is_error === true,
            meta: d.meta,
            durationMs: typeof d.duration_ms === 'number' ? d.duration_ms : 0,
            interrupted: d.interrupted === true,
            images: resultImages(d.images),
          }
          c.closed = false
          c.status = resultStatus(c)
        }
        midTurn = true
        break
      }
      case 'swarm': {
        // Sub-agents at work: the call is still running, and its card shows them.
        const d = (isObj(e.data) ? e.data : {}) as unknown as Swarm
        const c = calls.get(str(d.call_id))
        if (c) c.swarm = applySwarm(c.swarm ?? emptySwarm(c.id), d)
        midTurn = true
        break
      }
      case 'tool_progress': {
        // A long call reports how far it got: the running card shows the last report.
        const d = (isObj(e.data) ? e.data : {}) as unknown as ToolProgress
        const c = calls.get(str(d.call_id))
        if (c && !c.result) c.progress = { call_id: c.id, progress: typeof d.progress === 'number' ? d.progress : 0, total: typeof d.total === 'number' ? d.total : undefined, message: str(d.message) || undefined }
        break
      }
      case 'approval': {
        const d = isObj(e.data) ? e.data : {}
        const c = calls.get(str(d.call_id))
        if (c) {
          const decision = str(d.decision) as Decision | ''
          c.approval = { subject: str(d.subject), reason: str(d.reason), decision, by: str(d.by) as DecidedBy | '', state: decision ? 'answered' : 'pending', ...(d.once === true ? { once: true } : {}) }
          c.closed = false
        }
        midTurn = true
        break
      }
      case 'turn_end': {
        const d = isObj(e.data) ? e.data : {}
        for (const c of calls.values()) if (!c.result) c.closed = true
        for (const a of segAssistants) a.agent = true
        const reason = str(d.reason) as EndReason | ''
        const last = items[items.length - 1]
        if (last && (last.kind === 'error' || last.kind === 'interrupted')) last.action = 'continue'
        const t0 = Date.parse(segStart)
        const t1 = Date.parse(e.time)
        items.push({
          kind: 'turn',
          key,
          seq: e.seq,
          time: e.time,
          reason,
          steps: typeof d.steps === 'number' ? d.steps : 0,
          detail: str(d.detail),
          tokens: segTokens,
          durationMs: t0 && t1 && t1 >= t0 ? t1 - t0 : 0,
          continuable: false,
          rounds: segRounds,
        })
        turnAssistant = null
        callAssistant = null
        newSegment()
        midTurn = false
        break
      }
      case 'phase': {
        const d = isObj(e.data) ? e.data : {}
        const role = str(d.role)
        const state = str(d.state)
        if ((role !== 'planner' && role !== 'worker' && role !== 'critic') || (state !== 'start' && state !== 'end')) break
        const iteration = typeof d.iteration === 'number' ? d.iteration : 0
        if (role === 'worker' && state === 'start') segRounds++
        phaseRole = state === 'start' ? role : ''
        // The run goes on between phases: the typing dots show until the next reply streams,
        // and a log that stops here did not finish.
        midTurn = true
        turnAssistant = null
        callAssistant = null
        // Starts are markers; of the ends only the critic's verdict is.
        if (state === 'end' && role !== 'critic') break
        items.push({
          kind: 'phase',
          key,
          seq: e.seq,
          time: e.time,
          role,
          iteration,
          state,
          verdict: str(d.verdict) as Verdict | '',
          claimed: str(d.claimed) as Verdict | '',
          gate: str(d.gate),
          feedback: str(d.feedback),
        })
        break
      }
      case 'retry':
        retries++
        break
      case 'call_correction': {
        // The reply before printed a tool call as text: it was not run, and not the answer.
        if (turnAssistant) turnAssistant.printed = true
        if (isObj(e.data)) {
          notices = [...notices, correctionLabel(str(e.data.format), str(e.data.reason), Number(e.data.attempt) || 1, Number(e.data.max) || 1)]
        }
        break
      }
      case 'notice': {
        const text = textOf(e.data)
        // The compaction marker says it already.
        if (text && !(compactions.size && text.startsWith('Context compacted'))) notices = [...notices, text]
        break
      }
      case 'compaction': {
        const d = isObj(e.data) ? e.data : {}
        const id = str(d.id)
        if (!id) break
        const n = (x: unknown) => (typeof x === 'number' && x > 0 ? x : 0)
        const from = n(d.from)
        const item: CompactionItem = {
          kind: 'compaction',
          key,
          seq: e.seq,
          time: e.time,
          id,
          messages: Math.max(0, n(d.to) - from),
          tokensBefore: n(d.tokens_before),
          tokensAfter: n(d.tokens_after),
          threshold: n(d.threshold_tokens),
          trigger: str(d.trigger),
          instruction: str(d.instruction),
          model: str(d.model),
          undone: false,
          canUndo: !running,
        }
        compactions.set(id, item)
        items.push(item)
        break
      }
      case 'compaction_undo': {
        const item = isObj(e.data) ? compactions.get(str(e.data.id)) : undefined
        if (item) {
          item.undone = true
          item.canUndo = false
        }
        break
      }
      case 'fallback': {
        const model = isObj(e.data) ? str(e.data.model) : ''
        if (model && isObj(e.data)) {
          fallback = { model }
          if (str(e.data.from)) fallback.from = str(e.data.from)
          if (str(e.data.reason)) fallback.reason = str(e.data.reason)
          if (e.data.startup === true) fallback.startup = true
        }
        break
      }
      case 'model_call': {
        const call = callOf(e.data)
        if (call && callAssistant) {
          callAssistant.call = call
          if (callAssistant.fallback && call.model && call.model !== callAssistant.fallback.model) callAssistant.fallback.from = call.model
        }
        callAssistant = null
        break
      }
      case 'usage': {
        const u = usageOf(e.data)
        // A side call's usage (the rerank, the context summary) is not the reply's.
        if (u && turnAssistant && !str(u.purpose)) turnAssistant.usage = u
        if (u) {
          segTokens.input += u.input_tokens ?? 0
          segTokens.output += u.output_tokens ?? 0
          segTokens.reasoning += u.reasoning_tokens ?? 0
          segTokens.calls++
        }
        break
      }
      case 'error':
        clearPending()
        callAssistant = null
        midTurn = false
        items.push({
          kind: 'error',
          key,
          seq: e.seq,
          time: e.time,
          error: errorOf(e.data),
          retryable: false,
          canRetry: !(isObj(e.data) && e.data.retryable === false),
          action: 'retry',
        })
        break
      case 'interrupted': {
        clearPending()
        callAssistant = null
        midTurn = false
        const partial = textOf(e.data)
        if (!turnAssistant && partial) {
          turnAssistant = {
            kind: 'assistant',
            key: `${key}-partial`,
            seq: e.seq,
            time: e.time,
            text: partial,
            reasoning: reasoningOf(e.data),
            streaming: false,
            interrupted: true,
          }
          items.push(turnAssistant)
        }
        if (turnAssistant) turnAssistant.interrupted = true
        const reason = isObj(e.data) ? str(e.data.reason) : ''
        items.push({ kind: 'interrupted', key, seq: e.seq, time: e.time, reason, retryable: false, action: 'retry' })
        break
      }
      default:
        // Event types this front end does not know yet (compaction…) are not shown;
        // `retrieval` is read by the paper reader (papers.ts).
        break
    }
  })

  // What the calls without a result are doing: running or waiting while the turn runs; else
  // they did not run, and an approval asked for is expired (Continue asks again).
  let waiting = false
  let unresolved = false
  for (const c of calls.values()) {
    if (c.result) continue
    if (!c.final && running) {
      const pending = !!c.approval && !c.approval.decision
      c.status = pending ? 'waiting' : 'running'
      if (pending) c.approval!.state = 'pending'
      waiting ||= pending
      unresolved = true
    } else {
      c.status = 'not_run'
      if (c.approval && !c.approval.decision) c.approval.state = 'expired'
    }
  }
  // Strip the bookkeeping fields from the items components see.
  for (const it of items) {
    if (it.kind === 'assistant' && it.tools) it.tools = it.tools.map(({ final: _f, closed: _c, ...rest }: CallState) => rest)
  }

  if (state.live) {
    const live: AssistantItem = {
      kind: 'assistant',
      key: 'live',
      seq: null,
      time: '',
      text: state.live.text,
      reasoning: state.live.reasoning,
      streaming: true,
      interrupted: false,
    }
    if (retries > 0) live.retries = retries
    if (fallback) live.fallback = { ...(fallback as FallbackNote) }
    if (notices.length) live.notices = notices
    if (state.retrying) live.retrying = state.retrying
    items.push(live)
  } else if (running) {
    // Between steps of an agent turn: the tools are done and the model is being asked again.
    if (midTurn && !waiting && !unresolved) items.push({ kind: 'assistant', key: 'live', seq: null, time: '', text: '', reasoning: '', streaming: true, interrupted: false })
  } else {
    let last: Item | undefined = items[items.length - 1]
    if (last?.kind === 'turn') {
      last.continuable = !['done', 'interrupted', 'error', ''].includes(last.reason)
      last = items[items.length - 2]
    } else if (midTurn) {
      // The log stops mid-turn (Tofu was killed): nothing will finish it but Continue.
      const ev = path[path.length - 1]
      items.push({ kind: 'interrupted', key: 'unfinished', seq: ev?.seq ?? 0, time: ev?.time ?? '', reason: 'unfinished', retryable: true, action: 'continue' })
      last = undefined
    }
    if (last?.kind === 'interrupted') last.retryable = true
    if (last?.kind === 'error') last.retryable = last.canRetry
  }
  annotateBranches(items, tree, running)
  const changes = recordedChanges(state.events)
  if (changes.length) {
    for (const it of items) {
      if (it.kind !== 'user') continue
      const n = filesChangedSince(changes, it.seq).length
      if (n) it.undo = n
    }
  }
  return items
}

/** "user" and "shutdown" are Go's reasons; anything else is shown as it came. */
export function interruptedLabel(reason: string): string {
  const r = reason.trim()
  if (!r) return t('status.interrupted')
  if (r === 'unfinished') return t('turn.unfinished')
  if (/^user$|stop/i.test(r)) return t('turn.stopped')
  if (/shutdown/i.test(r)) return t('turn.shutdown')
  return t('turn.interruptedWhy', { reason: r })
}

const seconds = (ns: number) => {
  const s = ns / 1e9
  return s < 10 ? `${Number(s.toFixed(1))} s` : `${Math.round(s)} s`
}

/** One line per request the router sent, for a tooltip: target, wait, fault, what came next. */
export function describeAttempts(call: CallReport): string {
  const attempts = call.attempts ?? []
  return attempts
    .map((a, i) => {
      let line = `${i + 1}. ${a.target || call.target || call.model}`
      if (a.key >= 0 && attempts.some((b) => b.key > 0)) line += ` (key ${a.key + 1})`
      if (a.wait) line += ` after ${seconds(a.wait)}`
      const last = i === attempts.length - 1
      if (a.fault) {
        line += ` — ${a.fault.replace(/_/g, ' ')}`
        if (a.status) line += ` (HTTP ${a.status})`
        if (a.message) line += `: ${a.message.length > 120 ? a.message.slice(0, 119) + '…' : a.message}`
      } else {
        line += last ? ` — ${call.outcome || 'ok'}` : ' — ok'
      }
      if (a.events) line += `, ${a.events} event${a.events === 1 ? '' : 's'} streamed`
      if (a.next) line += ` → ${a.next.replace(/_/g, ' ')}`
      return line
    })
    .join('\n')
}

/** "retried once", "retried 3 times" */
export function retriedLabel(n: number): string {
  return n === 1 ? t('turn.retriedOnce') : n === 2 ? t('turn.retriedTwice') : t('turn.retriedTimes', { n })
}

/**
 * The small line under a reply: tokens, and how hard the router had to work ("· 2 attempts",
 * the attempts' faults in `title`); null when there is nothing to say.
 */
export function metaLine(item: AssistantItem): { text: string; title: string } | null {
  const parts: string[] = []
  const titles: string[] = []
  if (item.usage) {
    parts.push(formatUsage(item.usage))
    titles.push(t('turn.tokensReported'))
  }
  const attempts = item.call?.attempts?.length ?? 0
  if (item.call && attempts > 1) {
    parts.push(t('turn.attempts', { n: attempts }))
    titles.push(describeAttempts(item.call))
  } else if (item.retries) {
    parts.push(retriedLabel(item.retries))
    titles.push(t('turn.streamBroke'))
  }
  if (parts.length === 0) return null
  return { text: parts.join(' · '), title: titles.join('\n\n') }
}

/** A switch to another model, as the log's `fallback` event tells it. */
export interface FallbackNote {
  model: string
  from?: string
  reason?: string
  startup?: boolean
}

/** "Answered by qwen3:8b — claude-sonnet-4-5 kept failing: 529 overloaded" */
export function fallbackLabel(f: FallbackNote): string {
  const from = f.from || t('turn.theChosenModel')
  const line = f.startup ? t('turn.answeredByStartup', { model: f.model, from }) : t('turn.answeredByFailing', { model: f.model, from })
  return f.reason ? t('turn.withReason', { line, reason: f.reason }) : line
}

/** The note shown for a `call_correction` event. */
export function correctionLabel(format: string, reason: string, attempt: number, max: number): string {
  const f = format || t('turn.unknownFormat')
  return reason ? t('turn.correctionWhy', { format: f, reason, attempt, max }) : t('turn.correction', { format: f, attempt, max })
}

export function formatUsage(u: Usage): string {
  const parts: string[] = []
  if (u.model) parts.push(u.model)
  parts.push(t('turn.in', { n: (u.input_tokens ?? 0).toLocaleString('en-US') }))
  parts.push(t('turn.out', { n: (u.output_tokens ?? 0).toLocaleString('en-US') }))
  if (u.reasoning_tokens) parts.push(t('turn.reasoning', { n: u.reasoning_tokens.toLocaleString('en-US') }))
  if (u.cache_read_tokens) parts.push(t('turn.cached', { n: u.cache_read_tokens.toLocaleString('en-US') }))
  if (u.context_window) parts.push(t('turn.ctx', { n: u.context_window.toLocaleString('en-US') }))
  if (u.duration_ms) parts.push(`${(u.duration_ms / 1000).toFixed(1)} s`)
  return parts.join(' · ')
}

/** The per-turn line: "3 steps · 2,345 in · 120 out · 4.2 s". */
export function turnLine(turn: TurnItem): string {
  const n = (x: number) => x.toLocaleString('en-US')
  const parts: string[] = []
  if (turn.steps) parts.push(turn.steps === 1 ? t('turn.oneStep') : t('turn.steps', { n: turn.steps }))
  if (turn.tokens.calls) {
    parts.push(t('turn.in', { n: n(turn.tokens.input) }))
    parts.push(t('turn.out', { n: n(turn.tokens.output) }))
    if (turn.tokens.reasoning) parts.push(t('turn.reasoning', { n: n(turn.tokens.reasoning) }))
  }
  if (turn.durationMs) parts.push(turn.durationMs < 10000 ? `${(turn.durationMs / 1000).toFixed(1)} s` : `${Math.round(turn.durationMs / 1000)} s`)
  return parts.join(' · ')
}

/** Why a turn stopped early, in words; '' for the reasons shown elsewhere. */
export function turnEndLabel(turn: TurnItem): string {
  switch (turn.reason) {
    case 'max_steps':
      return t('turn.maxSteps', { n: turn.steps })
    case 'max_tokens':
      return t('turn.maxTokens')
    case 'repeated_call':
      return t('turn.repeatedCall')
    case 'printed_call':
      return t('turn.printedCall')
    case 'stuck':
      return t('turn.stuck')
    case 'max_iterations':
      return turn.rounds ? (turn.rounds === 1 ? t('turn.maxRoundsOne') : t('turn.maxRounds', { n: turn.rounds })) : t('turn.maxRoundsBare')
    case 'done':
    case 'interrupted':
    case 'error':
    case '':
      return ''
  }
  return t('turn.stoppedWhy', { reason: turn.reason.replace(/_/g, ' ') })
}

/** The verdict a critic's reply ends with, for the harness to read. */
const VERDICT_LINE = /\s*\**VERDICT:?\**\s*\**(STOP|CONTINUE_WORKER|CONTINUE_PLANNER)\**\.?\s*$/i

/** A critic's verdict in words (regression, issue 36: the marker showed "CONTINUE_WORKER"). */
const VERDICTS: Record<Verdict, Key> = {
  STOP: 'phase.verdictStop',
  CONTINUE_WORKER: 'phase.verdictWorker',
  CONTINUE_PLANNER: 'phase.verdictPlanner',
}

/** What a critic claimed when the gate did not accept it, in words. */
const CLAIMED: Record<Verdict, Key> = {
  STOP: 'phase.claimedStop',
  CONTINUE_WORKER: 'phase.claimedWorker',
  CONTINUE_PLANNER: 'phase.claimedPlanner',
}

/**
 * The words of a phase marker: "Planner: writing a plan", "Planner: writing a new plan",
 * "Worker: round 2, from the critic's feedback", "Critic: checking round 2", "Critic's verdict:
 * not done, another worker round — the first line of the feedback…"; `title` holds the whole
 * feedback and, when the gate overrode the critic, why.
 */
export function phaseLabel(p: PhaseItem): { text: string; title: string } {
  if (p.state === 'start') {
    switch (p.role) {
      case 'planner':
        return { text: p.iteration > 1 ? t('phase.plannerNew') : t('phase.planner'), title: t('phase.plannerTitle') }
      case 'worker':
        return {
          text: p.iteration > 1 ? t('phase.workerFeedback', { n: p.iteration }) : t('phase.worker', { n: p.iteration }),
          title: p.iteration > 1 ? t('phase.workerFeedbackTitle') : t('phase.workerTitle'),
        }
      case 'critic':
        return { text: t('phase.critic', { n: p.iteration }), title: t('phase.criticTitle') }
    }
  }
  const verdict = p.verdict && VERDICTS[p.verdict] ? t(VERDICTS[p.verdict]) : p.verdict || t('phase.noVerdict')
  let text = t('phase.verdict', { verdict })
  if (p.claimed) text += ` (${CLAIMED[p.claimed] ? t(CLAIMED[p.claimed]) : p.claimed})`
  const first = p.feedback.trim().split('\n')[0].trim()
  if (first) text += ` — ${first.length > 140 ? first.slice(0, 139) + '…' : first}`
  const title = [p.feedback.trim(), p.gate ? t('phase.notAccepted', { gate: p.gate }) : ''].filter(Boolean).join('\n\n')
  return { text, title }
}

/**
 * The words of a compaction marker: "Context compacted — 12 messages summarized (41,200 →
 * 9,800 tokens)", or "Compaction undone"; the title says why it fired and where the threshold is.
 */
export function compactionLabel(c: CompactionItem): { text: string; title: string } {
  const n = (x: number) => x.toLocaleString('en-US')
  const why =
    c.trigger === 'overflow'
      ? t('compaction.whyOverflow')
      : c.trigger === 'manual'
        ? c.instruction
          ? t('compaction.whyManualWith', { instruction: c.instruction })
          : t('compaction.whyManual')
        : c.threshold
          ? t('compaction.whyThreshold', { n: n(c.threshold) })
          : t('compaction.whyNear')
  const title = t('compaction.title', { why, model: c.model ? c.model : t('compaction.cheapModel') })
  if (c.undone) return { text: t('compaction.undone'), title: t('compaction.undoneTitle', { n: n(c.messages) }) }
  const tokens = c.tokensBefore && c.tokensAfter ? t('compaction.tokens', { before: n(c.tokensBefore), after: n(c.tokensAfter) }) : ''
  const what = c.messages === 1 ? t('compaction.oneMessage') : t('compaction.messages', { n: n(c.messages) })
  const text = c.trigger === 'manual' ? t('compaction.textAsked', { what, tokens }) : t('compaction.text', { what, tokens })
  return { text, title }
}
