// Token accounting: where a session's tokens go, from its `usage` events (docs/EVENTS.md).
// Pure functions only: ContextMeter and TokenPanel render what these return.
import { t as tr } from './i18n/index.svelte'
import type { Event } from './types'

/** One model call, from its `usage` event (and the `model_call` report that follows it). */
export type CallRow = {
  /** 1-based position of the call in the session. */
  index: number
  seq: number
  time: string
  /** The turn it belongs to (index into TokenReport.turns) and its step within that turn (1-based). */
  turn: number
  step: number
  model: string
  /** The autonomous run's phase the call ran in (planner, worker, critic), if any. */
  role: string
  /**
   * A side call made for the turn rather than the conversation's own call (`memory_rerank`,
   * `context_summary`): it costs like any call, but its input is not the conversation's context.
   */
  purpose?: string
  /** The provider's input tokens; they include the cached ones. */
  input: number
  cached: number
  /** input − cached */
  uncached: number
  output: number
  reasoning: number
  /** Tofu's own o200k count of the request and of the reply. */
  localInput: number
  localOutput: number
  /** What the call put in the context window: the larger of the provider's and the local count. */
  context: number
  /** The window the call ran with (0 = not reported). */
  window: number
  durationMs: number
  /** The price from the settings' price table, when the call was priced. */
  cost?: number
  /** Requests the router sent for this call (from `model_call`), when known. */
  attempts?: number
}

export type Totals = {
  calls: number
  input: number
  cached: number
  output: number
  reasoning: number
  localInput: number
  durationMs: number
  /** Sum of the priced calls' cost; undefined when no call was priced. */
  cost?: number
  priced: number
}

/** A user message and the model calls it caused (seq 0 / empty text: calls before any message). */
export type TurnGroup = { index: number; seq: number; text: string; calls: CallRow[]; totals: Totals }

export type TokenReport = { calls: CallRow[]; turns: TurnGroup[]; totals: Totals }

type Obj = Record<string, unknown>
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x)
const str = (x: unknown): string => (typeof x === 'string' ? x : '')
/** A non-negative integer count; anything else is 0. */
const count = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.round(x) : 0)

export const emptyTotals = (): Totals => ({ calls: 0, input: 0, cached: 0, output: 0, reasoning: 0, localInput: 0, durationMs: 0, priced: 0 })

export function sumCalls(calls: CallRow[]): Totals {
  const t = emptyTotals()
  for (const c of calls) {
    t.calls++
    t.input += c.input
    t.cached += c.cached
    t.output += c.output
    t.reasoning += c.reasoning
    t.localInput += c.localInput
    t.durationMs += c.durationMs
    if (c.cost !== undefined) {
      t.cost = (t.cost ?? 0) + c.cost
      t.priced++
    }
  }
  return t
}

/** A `usage` payload as a row (turn, step and index are filled in by `tokenReport`). */
export function callRowOf(e: Event): CallRow | null {
  if (!isObj(e.data)) return null
  const d = isObj(e.data.usage) ? e.data.usage : e.data
  if (typeof d.input_tokens !== 'number' && typeof d.output_tokens !== 'number' && typeof d.local_input_tokens !== 'number') return null
  const input = count(d.input_tokens)
  // Cached tokens are part of the input; a provider reporting more is clamped.
  const cached = Math.min(count(d.cache_read_tokens), input)
  const localInput = count(d.local_input_tokens)
  const row: CallRow = {
    index: 0,
    seq: e.seq,
    time: e.time,
    turn: 0,
    step: 0,
    model: str(d.model),
    // A side call (the memory rerank, the context summary) is labelled with its purpose.
    role: str(d.purpose).replace('_', ' '),
    input,
    cached,
    uncached: input - cached,
    output: count(d.output_tokens),
    reasoning: count(d.reasoning_tokens),
    localInput,
    localOutput: count(d.local_output_tokens),
    context: Math.max(input, localInput),
    window: count(d.context_window),
    durationMs: count(d.duration_ms),
  }
  if (typeof d.cost_usd === 'number' && Number.isFinite(d.cost_usd) && d.cost_usd > 0) row.cost = d.cost_usd
  if (str(d.purpose)) row.purpose = str(d.purpose)
  return row
}

/**
 * The session's model calls, one row per `usage` event, grouped into turns by user message.
 * A `model_call` report right after a usage event adds the call's attempt count; phase events
 * label the calls of an autonomous run. Other events (compaction…) are skipped.
 */
export function tokenReport(events: readonly Event[]): TokenReport {
  const calls: CallRow[] = []
  const turns: TurnGroup[] = []
  let turn: TurnGroup | null = null
  let role = ''
  let last: CallRow | null = null // the call a following model_call reports on
  for (const e of events) {
    switch (e.type) {
      case 'user':
        turn = { index: turns.length, seq: e.seq, text: isObj(e.data) ? str(e.data.text) : '', calls: [], totals: emptyTotals() }
        turns.push(turn)
        role = ''
        last = null
        break
      case 'phase': {
        const d = isObj(e.data) ? e.data : {}
        role = str(d.state) === 'start' ? str(d.role) : ''
        break
      }
      case 'usage': {
        const row = callRowOf(e)
        if (!row) break
        if (!turn) {
          turn = { index: turns.length, seq: 0, text: '', calls: [], totals: emptyTotals() }
          turns.push(turn)
        }
        row.index = calls.length + 1
        row.turn = turn.index
        row.step = turn.calls.length + 1
        row.role = role || row.role
        calls.push(row)
        turn.calls.push(row)
        last = row
        break
      }
      case 'model_call': {
        const d = isObj(e.data) ? e.data : {}
        if (last && Array.isArray(d.attempts)) last.attempts = d.attempts.length
        last = null
        break
      }
      default:
        break
    }
  }
  for (const t of turns) t.totals = sumCalls(t.calls)
  return { calls, turns: turns.filter((t) => t.calls.length > 0), totals: sumCalls(calls) }
}

export type MeterLevel = 'ok' | 'warn' | 'full'

export type Meter = {
  /** The last call's context: the larger of the provider's input and the local count. */
  used: number
  /** The window (0 = unknown). */
  window: number
  /** used / window, clamped to [0, 1]; 0 when the window is unknown. */
  fraction: number
  /** cached / window, clamped to [0, fraction]: the cached part of the ring. */
  cachedFraction: number
  /** Cached share of the provider's input, 0…1. */
  cachedShare: number
  cached: number
  level: MeterLevel
  /** "12.4k / 32k · 61% cached" */
  label: string
  model: string
}

/** Above this share of the window the meter warns; above FULL_AT it is nearly full. */
export const WARN_AT = 0.8
export const FULL_AT = 0.95

/**
 * The context meter for the last call of the conversation, or null when the session has no
 * such usage yet. A side call (a rerank, the context summary, whose input is the history it
 * summarized) is not the conversation's context and is skipped. `windowOf` gives a model's
 * window when the usage event did not report one.
 */
export function meterOf(calls: readonly CallRow[], windowOf?: (model: string) => number): Meter | null {
  const c = calls.findLast((x) => !x.purpose)
  if (!c) return null
  const window = c.window || (windowOf ? count(windowOf(c.model)) : 0)
  const used = c.context
  const fraction = window > 0 ? Math.min(1, used / window) : 0
  const cachedFraction = window > 0 ? Math.min(fraction, c.cached / window) : 0
  const cachedShare = c.input > 0 ? c.cached / c.input : 0
  const level: MeterLevel = window > 0 && used / window > FULL_AT ? 'full' : window > 0 && used / window > WARN_AT ? 'warn' : 'ok'
  let label = window > 0 ? `${formatTokens(used)} / ${formatWindow(window)}` : `${formatTokens(used)} tokens`
  if (c.cached > 0) label += ` · ${percent(cachedShare)} cached`
  return { used, window, fraction, cachedFraction, cachedShare, cached: c.cached, level, label, model: c.model }
}

/** 950 → "950", 12 400 → "12.4k", 5 000 → "5k", 128 000 → "128k", 1 250 000 → "1.25M". */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '0'
  if (n < 1000) return String(Math.round(n))
  if (n < 100_000) return `${trim((n / 1000).toFixed(1))}k`
  if (n < 999_500) return `${Math.round(n / 1000)}k`
  return `${trim((n / 1_000_000).toFixed(2))}M`
}

/** A context window: powers-of-two sizes as people say them (32 768 → "32k", 131 072 → "128k"). */
export function formatWindow(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)}M`
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024}k`
  return formatTokens(n)
}

const trim = (s: string): string => s.replace(/\.?0+$/, '')

/** 0.614 → "61%"; a small non-zero share is "<1%". */
export function percent(x: number): string {
  if (!(x > 0)) return '0%'
  if (x < 0.01) return '<1%'
  return `${Math.round(Math.min(1, x) * 100)}%`
}

/** "$0.12", "$1.50", "$0.0042". */
export function formatCost(usd: number): string {
  if (!(usd > 0)) return '$0'
  if (usd >= 1) return `$${usd.toFixed(2)}`
  if (usd >= 0.01) return `$${trim(usd.toFixed(3))}`
  return `$${Number(usd.toPrecision(2))}`
}

/** "1,234" */
export const exact = (n: number): string => n.toLocaleString('en-US')

/** "850 ms", "4.2 s", "73 s" */
export function formatDuration(ms: number): string {
  if (!(ms > 0)) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`
}

/** The bar's label under the chart: the step in a turn view, "turn.step" across the session. */
export function stepLabel(c: CallRow, scope: 'turn' | 'session', turns: number): string {
  if (scope === 'turn' || turns <= 1) return String(c.step)
  return `${c.turn + 1}.${c.step}`
}

/** A call in words, for a bar's tooltip and screen readers. */
export function describeCall(c: CallRow): string {
  const parts = [`${tr('tokens.step', { n: c.step })}${c.role ? ` (${c.role})` : ''}${c.model ? ` · ${c.model}` : ''}`]
  parts.push(`${tr('tokens.input', { n: exact(c.input) })}${c.cached ? ` ${tr('tokens.callCached', { n: exact(c.cached) })}` : ''}`)
  parts.push(`${tr('tokens.output', { n: exact(c.output) })}${c.reasoning ? ` ${tr('tokens.reasoning', { n: exact(c.reasoning) })}` : ''}`)
  if (c.localInput) parts.push(tr('tokens.localEstimate', { n: exact(c.localInput) }))
  if (c.window) parts.push(tr('tokens.callWindow', { n: exact(c.window) }))
  if (c.cost !== undefined) parts.push(formatCost(c.cost))
  return parts.join(' · ')
}

export type Bar = {
  call: CallRow
  x: number
  width: number
  /** Heights and tops (SVG y grows downwards) of the three stacked parts and of the tick. */
  cached: { y: number; h: number }
  uncached: { y: number; h: number }
  output: { y: number; h: number }
  /** y of the local estimate's tick, or null without one. */
  tick: number | null
  label: string
  /** Whether the label is drawn (narrow bars label every few steps). */
  showLabel: boolean
  /** First bar of a new turn (session view): a separator is drawn before it, at sepX. */
  turnStart: boolean
  sepX: number
}

export type Chart = {
  width: number
  height: number
  /** The plot area: bars stand on y = baseline. */
  baseline: number
  top: number
  max: number
  bars: Bar[]
  /** Gridlines: value and y. */
  ticks: { value: number; y: number }[]
  /** The context window's line when the bars come near it. */
  windowLine: { value: number; y: number } | null
}

/** Rounds up to 1, 2, 2.5 or 5 × 10ⁿ: the top of the chart's scale. */
export function niceCeil(x: number): number {
  if (!(x > 0)) return 1
  const p = Math.pow(10, Math.floor(Math.log10(x)))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x - 1e-9) return m * p
  return 10 * p
}

/**
 * Lays out one stacked bar per call (cached input, uncached input, output from the bottom) with
 * the local estimate as a tick. `minWidth` is the drawing's width; more calls than fit at `minSlot`
 * make it wider (the panel scrolls).
 */
export function layoutChart(calls: readonly CallRow[], scope: 'turn' | 'session', opts: { minWidth?: number; height?: number; minSlot?: number; maxSlot?: number } = {}): Chart {
  const minWidth = opts.minWidth ?? 520
  const height = opts.height ?? 160
  const left = 40
  const right = 8
  const top = 10
  const bottom = 20
  const baseline = height - bottom
  const plot = baseline - top
  const n = calls.length
  const slot = n === 0 ? 0 : Math.max(opts.minSlot ?? 10, Math.min(opts.maxSlot ?? 44, (minWidth - left - right) / n))
  const width = Math.max(minWidth, left + right + slot * n)
  const turns = new Set(calls.map((c) => c.turn)).size
  let peak = 0
  for (const c of calls) peak = Math.max(peak, c.input + c.output, c.localInput)
  const win = calls.reduce((w, c) => Math.max(w, c.window), 0)
  // The window line only when the bars come within reach of it; else it would flatten them.
  const showWindow = win > 0 && peak >= win * 0.6
  const max = niceCeil(Math.max(peak, showWindow ? win : 0))
  const y = (v: number) => baseline - (v / max) * plot
  const h = (v: number) => (v / max) * plot
  const barW = Math.max(4, Math.min(28, slot * 0.62))
  const labelW = turns > 1 && scope === 'session' ? 26 : 16
  const every = Math.max(1, Math.ceil(labelW / (slot || 1)))
  const bars: Bar[] = calls.map((c, i) => {
    const x = left + slot * i + (slot - barW) / 2
    const hc = h(c.cached)
    const hu = h(c.uncached)
    const ho = h(c.output)
    return {
      call: c,
      x,
      width: barW,
      cached: { y: baseline - hc, h: hc },
      uncached: { y: baseline - hc - hu, h: hu },
      output: { y: baseline - hc - hu - ho, h: ho },
      tick: c.localInput > 0 ? y(c.localInput) : null,
      label: stepLabel(c, scope, turns),
      showLabel: i % every === 0,
      turnStart: scope === 'session' && i > 0 && c.turn !== calls[i - 1].turn,
      sepX: left + slot * i,
    }
  })
  const ticks = [0, max / 2, max].map((value) => ({ value, y: y(value) }))
  return { width, height, baseline, top, max, bars, ticks, windowLine: showWindow ? { value: win, y: y(win) } : null }
}
