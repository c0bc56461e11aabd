import { describe, expect, it } from 'vitest'
import {
  describeCall,
  formatCost,
  formatDuration,
  formatTokens,
  formatWindow,
  layoutChart,
  meterOf,
  niceCeil,
  percent,
  stepLabel,
  tokenReport,
  type CallRow,
} from './tokens'
import type { Event, EventType } from './types'

let seq = 0
function ev(type: EventType, data: unknown): Event {
  seq++
  return { session: 's1', seq, time: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, type, data }
}
const usage = (input: number, output: number, extra: Record<string, unknown> = {}) =>
  ev('usage', { model: 'qwen3', input_tokens: input, output_tokens: output, context_window: 32768, duration_ms: 1200, local_input_tokens: input + 10, local_output_tokens: output, ...extra })
const call = (attempts: number) => ev('model_call', { model: 'qwen3', target: 'ollama/qwen3', attempts: Array.from({ length: attempts }, () => ({ target: 'ollama/qwen3', key: 0, events: 3 })), outcome: 'ok' })

/** A chat turn, then an agent turn of three calls (one retried, one cached), then a failed call. */
function session(): Event[] {
  seq = 0
  return [
    ev('user', { text: 'hi' }),
    ev('assistant', { text: 'hello', model: 'qwen3' }),
    usage(100, 20),
    call(1),
    ev('user', { text: 'fix the bug' }),
    ev('assistant', { text: '', tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] }),
    usage(1000, 50, { cache_read_tokens: 0 }),
    call(2),
    ev('tool_result', { call_id: 'c1', name: 'read_file', text: 'x' }),
    ev('compaction', { summary: 'whatever a later version writes' }),
    ev('assistant', { text: 'done' }),
    usage(2000, 300, { cache_read_tokens: 1200, reasoning_tokens: 40, cost_usd: 0.0123 }),
    call(1),
    ev('turn_end', { reason: 'done', steps: 2 }),
    ev('user', { text: 'again' }),
    call(3), // failed: no usage before it
    ev('error', { kind: 'server', message: 'boom' }),
  ]
}

describe('tokenReport', () => {
  it('makes one row per usage event, grouped by user message', () => {
    const r = tokenReport(session())
    expect(r.calls.map((c) => [c.index, c.turn, c.step])).toEqual([
      [1, 0, 1],
      [2, 1, 1],
      [3, 1, 2],
    ])
    // The third user message caused no completed call: no group for it.
    expect(r.turns.map((t) => [t.text, t.calls.length])).toEqual([
      ['hi', 1],
      ['fix the bug', 2],
    ])
    const c = r.calls[2]
    expect(c).toMatchObject({ model: 'qwen3', input: 2000, cached: 1200, uncached: 800, output: 300, reasoning: 40, localInput: 2010, context: 2010, window: 32768, durationMs: 1200, cost: 0.0123, attempts: 1 })
    expect(r.calls[1].attempts).toBe(2)
    expect(r.calls[0].cost).toBeUndefined()
  })

  it('sums totals per turn and for the session; cost only over priced calls', () => {
    const r = tokenReport(session())
    expect(r.totals).toMatchObject({ calls: 3, input: 3100, cached: 1200, output: 370, reasoning: 40, localInput: 3130, durationMs: 3600, priced: 1 })
    expect(r.totals.cost).toBeCloseTo(0.0123)
    expect(r.turns[0].totals.cost).toBeUndefined()
    expect(r.turns[1].totals).toMatchObject({ calls: 2, input: 3000, output: 350 })
  })

  it('uses the larger of provider and local input as the context, clamps cached to input', () => {
    seq = 0
    const r = tokenReport([ev('user', { text: 'q' }), usage(500, 5, { local_input_tokens: 900, cache_read_tokens: 9999 })])
    expect(r.calls[0]).toMatchObject({ input: 500, localInput: 900, context: 900, cached: 500, uncached: 0 })
  })

  it('keeps calls before any user message, labels autonomous phases, skips junk', () => {
    seq = 0
    const r = tokenReport([
      usage(10, 1),
      ev('usage', 'not an object'),
      ev('usage', { nothing: true }),
      ev('user', { text: 'go' }),
      ev('phase', { role: 'planner', iteration: 1, state: 'start' }),
      usage(20, 2),
      ev('phase', { role: 'planner', iteration: 1, state: 'end' }),
      ev('phase', { role: 'worker', iteration: 1, state: 'start' }),
      usage(30, 3, { input_tokens: -5, output_tokens: Number.NaN }),
    ])
    expect(r.turns.map((t) => [t.seq, t.calls.length])).toEqual([
      [0, 1],
      [4, 2],
    ])
    expect(r.calls.map((c) => c.role)).toEqual(['', 'planner', 'worker'])
    expect(r.calls[2]).toMatchObject({ input: 0, output: 0 })
  })

  it('labels a side call with its purpose (the memory rerank before a turn)', () => {
    seq = 0
    const r = tokenReport([ev('user', { text: 'q' }), usage(40, 2, { purpose: 'memory_rerank' }), usage(900, 30)])
    expect(r.calls.map((c) => c.role)).toEqual(['memory rerank', ''])
    expect(r.turns[0].totals.calls).toBe(2)
  })

  it('counts the context summary like the turn\'s calls, but the meter skips it', () => {
    seq = 0
    const r = tokenReport([
      ev('user', { text: 'q' }),
      ev('assistant', { text: 'a' }),
      usage(9000, 30),
      call(1),
      ev('user', { text: 'more' }),
      usage(7000, 400, { purpose: 'context_summary', context_window: 0, cost_usd: 0.01 }),
      call(1),
      ev('compaction', { summary: 's' }),
    ])
    expect(r.calls.map((c) => c.role)).toEqual(['', 'context summary'])
    expect(r.totals).toMatchObject({ calls: 2, input: 16000, output: 430, cost: 0.01 })
    expect(r.calls[1]).toMatchObject({ purpose: 'context_summary', attempts: 1 })
    // Before the next call completes, the meter still shows the conversation's last call.
    expect(meterOf(r.calls)!.used).toBe(9010)
    expect(meterOf([r.calls[1]])).toBeNull()
  })

  it('reads a usage nested under "usage" and an empty log', () => {
    seq = 0
    expect(tokenReport([]).calls).toEqual([])
    expect(tokenReport([]).totals.calls).toBe(0)
    const r = tokenReport([ev('usage', { usage: { input_tokens: 7, output_tokens: 3 } })])
    expect(r.calls[0]).toMatchObject({ input: 7, output: 3, window: 0 })
  })
})

describe('meterOf', () => {
  const row = (over: Partial<CallRow>): CallRow => ({
    index: 1, seq: 1, time: '', turn: 0, step: 1, model: 'm', role: '', input: 0, cached: 0, uncached: 0, output: 0,
    reasoning: 0, localInput: 0, localOutput: 0, context: 0, window: 0, durationMs: 0, ...over,
  })

  it('is null without calls', () => {
    expect(meterOf([])).toBeNull()
  })

  it('measures the last call against its window, with the cached share', () => {
    const m = meterOf([row({ context: 30000, window: 32768 }), row({ input: 12400, cached: 7564, context: 12400, window: 32768 })])!
    expect(m.used).toBe(12400)
    expect(m.fraction).toBeCloseTo(12400 / 32768)
    expect(m.cachedFraction).toBeCloseTo(7564 / 32768)
    expect(m.cachedShare).toBeCloseTo(0.61)
    expect(m.level).toBe('ok')
    expect(m.label).toBe('12.4k / 32k · 61% cached')
  })

  it('uses the local count when larger, and warns near the window', () => {
    const warn = meterOf([row({ input: 20000, localInput: 27000, context: 27000, window: 32768 })])!
    expect(warn.used).toBe(27000)
    expect(warn.level).toBe('warn')
    expect(warn.label).toBe('27k / 32k')
    const full = meterOf([row({ input: 40000, context: 40000, window: 32768 })])!
    expect(full.level).toBe('full')
    expect(full.fraction).toBe(1)
    expect(meterOf([row({ context: 26000, window: 32768 })])!.level).toBe('ok') // 79%
  })

  it('asks for the window when the call reported none', () => {
    const m = meterOf([row({ model: 'qwen3', context: 1000 })], (model) => (model === 'qwen3' ? 8192 : 0))!
    expect(m.window).toBe(8192)
    expect(m.label).toBe('1k / 8k')
    const unknown = meterOf([row({ context: 1000 })])!
    expect(unknown).toMatchObject({ window: 0, fraction: 0, level: 'ok', label: '1k tokens' })
  })
})

describe('formatting', () => {
  it('formats token counts', () => {
    expect([0, -3, 950, 999, 1000, 1049, 10_000, 20_040, 12400, 12449, 99_999, 128_000, 999_000, 1_250_000].map(formatTokens)).toEqual([
      '0', '0', '950', '999', '1k', '1k', '10k', '20k', '12.4k', '12.4k', '100k', '128k', '999k', '1.25M',
    ])
  })
  it('formats windows as people say them', () => {
    expect([32768, 131072, 200000, 8192, 1048576, 4000].map(formatWindow)).toEqual(['32k', '128k', '200k', '8k', '1M', '4k'])
  })
  it('formats shares, costs and durations', () => {
    expect([0, 0.004, 0.614, 1, 1.5].map(percent)).toEqual(['0%', '<1%', '61%', '100%', '100%'])
    expect([0, 0.0042, 0.0123, 0.5, 1.5].map(formatCost)).toEqual(['$0', '$0.0042', '$0.012', '$0.5', '$1.50'])
    expect([0, 850, 4200, 73000].map(formatDuration)).toEqual(['—', '850 ms', '4.2 s', '73 s'])
  })
  it('labels steps and describes calls', () => {
    const r = tokenReport(session())
    expect(stepLabel(r.calls[2], 'session', 2)).toBe('2.2')
    expect(stepLabel(r.calls[2], 'turn', 2)).toBe('2')
    expect(stepLabel(r.calls[0], 'session', 1)).toBe('1')
    expect(describeCall(r.calls[2])).toBe('Step 2 · qwen3 · 2,000 input (1,200 cached) · 300 output (40 reasoning) · local o200k estimate 2,010 · window 32,768 · $0.012')
  })
  it('rounds the scale up to a nice number', () => {
    expect([0, 1, 7, 12, 2400, 2600, 30000].map(niceCeil)).toEqual([1, 1, 10, 20, 2500, 5000, 50000])
  })
})

describe('layoutChart', () => {
  it('stacks cached, uncached and output from the baseline, with the local tick', () => {
    const r = tokenReport(session())
    const ch = layoutChart(r.calls, 'session', { minWidth: 400, height: 120 })
    expect(ch.bars).toHaveLength(3)
    expect(ch.max).toBe(2500) // peak 2,300 (2,000 in + 300 out)
    const b = ch.bars[2]
    const plot = ch.baseline - ch.top
    expect(b.cached.y + b.cached.h).toBeCloseTo(ch.baseline)
    expect(b.cached.h).toBeCloseTo((1200 / 2500) * plot)
    expect(b.uncached.y + b.uncached.h).toBeCloseTo(b.cached.y)
    expect(b.uncached.h).toBeCloseTo((800 / 2500) * plot)
    expect(b.output.y + b.output.h).toBeCloseTo(b.uncached.y)
    expect(b.tick).toBeCloseTo(ch.baseline - (2010 / 2500) * plot)
    // Bars go left to right, inside the drawing; a new turn is marked.
    expect(ch.bars[0].x).toBeLessThan(ch.bars[1].x)
    expect(b.x + b.width).toBeLessThanOrEqual(ch.width)
    expect(ch.bars.map((x) => x.turnStart)).toEqual([false, true, false])
    expect(ch.bars.map((x) => x.label)).toEqual(['1.1', '2.1', '2.2'])
    // Far below the 32k window: no window line.
    expect(ch.windowLine).toBeNull()
  })

  it('draws the window line when the bars come near it, and widens for many calls', () => {
    seq = 0
    const many = tokenReport([ev('user', { text: 'q' }), ...Array.from({ length: 120 }, (_, i) => usage(20000 + i * 100, 10))])
    const ch = layoutChart(many.calls, 'turn', { minWidth: 500 })
    expect(ch.windowLine?.value).toBe(32768)
    expect(ch.max).toBeGreaterThanOrEqual(32768)
    expect(ch.width).toBeGreaterThan(500)
    expect(ch.bars.every((b) => b.width >= 4)).toBe(true)
    // Narrow bars are labelled every few steps, the first always.
    expect(ch.bars[0].showLabel).toBe(true)
    expect(ch.bars.filter((b) => b.showLabel).length).toBeLessThan(120)
    expect(layoutChart([], 'turn').bars).toEqual([])
  })
})
