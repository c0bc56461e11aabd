import { describe, expect, it } from 'vitest'
import {
  apply,
  describeAttempts,
  emptyTranscript,
  fallbackLabel,
  formatUsage,
  interruptedLabel,
  metaLine,
  project,
  withEvents,
  type AssistantItem,
  type TranscriptState,
} from './transcript'
import type { Event, EventType } from './types'

let seq = 0
function ev(type: EventType, data: unknown): Event {
  seq++
  return { session: 's1', seq, time: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, type, data }
}

describe('project', () => {
  it('turns the event log into display items', () => {
    seq = 0
    const state = withEvents(emptyTranscript, [
      ev('user', { text: 'hi' }),
      ev('assistant', { text: 'Hello **there**', reasoning: 'greet back', model: 'qwen3' }),
      ev('usage', { model: 'qwen3', input_tokens: 12, output_tokens: 5 }),
      ev('user', { text: 'again' }),
      ev('error', { kind: 'unreachable', message: 'Ollama is not reachable at http://127.0.0.1:11434', hint: 'start `ollama serve`' }),
    ])
    const items = project(state)
    expect(items.map((i) => i.kind)).toEqual(['user', 'assistant', 'user', 'error'])
    expect(items[0]).toMatchObject({ kind: 'user', text: 'hi' })
    const a = items[1] as AssistantItem
    expect(a).toMatchObject({ text: 'Hello **there**', reasoning: 'greet back', streaming: false, interrupted: false })
    expect(a.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 })
    expect(items[3]).toMatchObject({
      kind: 'error',
      error: { kind: 'unreachable', message: 'Ollama is not reachable at http://127.0.0.1:11434', hint: 'start `ollama serve`' },
      retryable: true,
    })
  })

  it('keeps the user message after an error and accepts a wrapped error', () => {
    seq = 0
    const items = project(withEvents(emptyTranscript, [ev('user', { text: 'q' }), ev('error', { error: { kind: 'model_not_found', message: 'no llama3', hint: 'ollama pull llama3' } })]))
    expect(items[0]).toMatchObject({ kind: 'user', text: 'q' })
    expect(items[1]).toMatchObject({ kind: 'error', error: { kind: 'model_not_found', hint: 'ollama pull llama3' } })
  })

  it('marks an interrupted reply and keeps its partial text', () => {
    seq = 0
    const withAssistant = project(withEvents(emptyTranscript, [ev('user', { text: 'long' }), ev('assistant', { text: 'partial' }), ev('interrupted', {})]))
    expect(withAssistant.map((i) => i.kind)).toEqual(['user', 'assistant', 'interrupted'])
    expect(withAssistant[1]).toMatchObject({ text: 'partial', interrupted: true })
    expect(withAssistant[2]).toMatchObject({ retryable: true })

    seq = 0
    const textInEvent = project(withEvents(emptyTranscript, [ev('user', { text: 'long' }), ev('interrupted', { text: 'half an ans' })]))
    expect(textInEvent.map((i) => i.kind)).toEqual(['user', 'assistant', 'interrupted'])
    expect(textInEvent[1]).toMatchObject({ text: 'half an ans', interrupted: true })
  })

  it('attaches usage only to the assistant message of its turn', () => {
    seq = 0
    const items = project(withEvents(emptyTranscript, [ev('user', { text: 'a' }), ev('usage', { input_tokens: 1, output_tokens: 2 })]))
    expect(items).toHaveLength(1)
  })

  it('keeps a side call\'s usage (the context summary before a step) off the reply before it', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'a' }),
        ev('assistant', { text: '', tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] }),
        ev('usage', { input_tokens: 900, output_tokens: 2 }),
        ev('tool_result', { call_id: 'c1', name: 'read_file', text: 'x' }),
        ev('usage', { input_tokens: 800, output_tokens: 300, purpose: 'context_summary' }),
      ]),
    )
    expect((items[1] as AssistantItem).usage).toMatchObject({ input_tokens: 900, output_tokens: 2 })
  })

  it('ignores duplicate events and keeps seq order', () => {
    seq = 0
    const a = ev('user', { text: 'one' })
    const b = ev('assistant', { text: 'two' })
    let s = withEvents(emptyTranscript, [b])
    s = withEvents(s, [a, b])
    expect(project(s).map((i) => (i as { text: string }).text)).toEqual(['one', 'two'])
  })
})

describe('Go payloads (backend/store/event.go)', () => {
  it('reads AssistantMessage.interrupted, ErrorInfo.retryable and Interruption.reason', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'long' }),
        ev('assistant', { text: 'part', model: 'm', provider: 'ollama', stop_reason: 'interrupted', interrupted: true }),
        ev('interrupted', { reason: 'user' }),
        ev('user', { text: 'again' }),
        ev('error', { kind: 'bad_request', message: 'does not support tools', retryable: false }),
      ]),
    )
    expect(items[1]).toMatchObject({ kind: 'assistant', interrupted: true })
    expect(items[2]).toMatchObject({ kind: 'interrupted', reason: 'user', retryable: false })
    expect(interruptedLabel('user')).toBe('Stopped')
    expect(items[4]).toMatchObject({ kind: 'error', canRetry: false, retryable: false })
  })

  it('keeps an event that was never stored (seq 0) after the log', () => {
    seq = 0
    let s = withEvents(emptyTranscript, [ev('user', { text: 'q' })])
    const unstored: Event = { session: 's1', seq: 0, time: '', type: 'error', data: { kind: 'storage', message: 'could not save', retryable: false } }
    s = apply(s, { kind: 'event', event: unstored })
    s = apply(s, { kind: 'event', event: { ...unstored, data: { kind: 'storage', message: 'again' } } })
    const items = project(s)
    expect(items.map((i) => i.kind)).toEqual(['user', 'error', 'error'])
    expect(new Set(items.map((i) => i.key)).size).toBe(3)
  })
})

describe('apply (live stream)', () => {
  it('appends deltas to the in-flight assistant message, then the final event replaces them', () => {
    seq = 0
    let s: TranscriptState = withEvents(emptyTranscript, [ev('user', { text: 'hello' })])
    s = apply(s, { kind: 'stream', state: 'started' })
    let items = project(s)
    expect(items.at(-1)).toMatchObject({ kind: 'assistant', streaming: true, text: '' })

    s = apply(s, { kind: 'delta', text: 'Hel' })
    s = apply(s, { kind: 'delta', text: 'lo', reasoning: 'hmm' })
    items = project(s)
    expect(items).toHaveLength(2)
    expect(items[1]).toMatchObject({ kind: 'assistant', streaming: true, text: 'Hello', reasoning: 'hmm' })

    s = apply(s, { kind: 'event', event: ev('assistant', { text: 'Hello, world.' }) })
    items = project(s)
    expect(items).toHaveLength(2)
    expect(items[1]).toMatchObject({ kind: 'assistant', streaming: false, text: 'Hello, world.' })

    s = apply(s, { kind: 'event', event: ev('usage', { input_tokens: 3, output_tokens: 4 }) })
    s = apply(s, { kind: 'stream', state: 'ended' })
    items = project(s)
    expect(items).toHaveLength(2)
    expect((items[1] as AssistantItem).usage?.output_tokens).toBe(4)
  })

  it('does not offer retry while a reply streams', () => {
    seq = 0
    let s = withEvents(emptyTranscript, [ev('user', { text: 'x' }), ev('error', { kind: 'server', message: 'boom' })])
    s = apply(s, { kind: 'stream', state: 'started' })
    expect(project(s).find((i) => i.kind === 'error')).toMatchObject({ retryable: false })
  })

  it('ends the live message when the stream ends without a reply', () => {
    seq = 0
    let s = apply(withEvents(emptyTranscript, [ev('user', { text: 'x' })]), { kind: 'delta', text: 'pa' })
    s = apply(s, { kind: 'stream', state: 'ended' })
    expect(project(s)).toHaveLength(1)
  })
})

describe('formatUsage', () => {
  it('shows tokens in and out', () => {
    expect(formatUsage({ model: 'qwen3', input_tokens: 1234, output_tokens: 56, duration_ms: 2100 })).toBe('qwen3 · 1,234 in · 56 out · 2.1 s')
  })
})

describe('router events (retry, fallback, model_call)', () => {
  const report = (attempts: object[], extra: object = {}) => ({
    model: 'claude',
    target: 'anthropic/claude',
    attempts,
    outcome: 'ok',
    duration: 2_300_000_000,
    ...extra,
  })

  it('keeps only the text streamed after a reset', () => {
    seq = 0
    let s: TranscriptState = withEvents(emptyTranscript, [ev('user', { text: 'hello' })])
    s = apply(s, { kind: 'stream', state: 'started' })
    s = apply(s, { kind: 'delta', text: 'Hello from the ', reasoning: 'first try' })
    s = apply(s, { kind: 'delta', text: 'broken str' })
    s = apply(s, { kind: 'reset', text: 'server: stream reset' })
    let live = project(s).at(-1) as AssistantItem
    expect(live).toMatchObject({ kind: 'assistant', streaming: true, text: '', reasoning: '', retrying: 'server: stream reset' })

    // The log records the re-run; the note stays until new text arrives.
    s = apply(s, { kind: 'event', event: ev('retry', { reason: 'server: stream reset' }) })
    expect((project(s).at(-1) as AssistantItem).retrying).toBe('server: stream reset')
    s = apply(s, { kind: 'delta', text: 'Hello ' })
    s = apply(s, { kind: 'delta', text: 'again.' })
    live = project(s).at(-1) as AssistantItem
    expect(live).toMatchObject({ text: 'Hello again.', reasoning: '', retries: 1 })
    expect(live.retrying).toBeUndefined()

    s = apply(s, { kind: 'event', event: ev('assistant', { text: 'Hello again.', model: 'm' }) })
    s = apply(s, { kind: 'stream', state: 'ended' })
    const items = project(s)
    expect(items).toHaveLength(2)
    expect(items[1]).toMatchObject({ kind: 'assistant', text: 'Hello again.', retries: 1, streaming: false })
  })

  it('drops the retry note when the stream ends', () => {
    seq = 0
    let s = apply(withEvents(emptyTranscript, [ev('user', { text: 'x' })]), { kind: 'reset', text: 'cut' })
    s = apply(s, { kind: 'stream', state: 'ended' })
    expect(s.retrying).toBeFalsy()
    expect(project(s)).toHaveLength(1)
  })

  it('shows a fallback on the reply that follows it, naming the model asked for', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'q' }),
        ev('fallback', { model: 'qwen3:8b' }),
        ev('assistant', { text: 'a', model: 'qwen3:8b' }),
        ev('usage', { input_tokens: 1, output_tokens: 2 }),
        ev('model_call', report([{ target: 'anthropic/claude', key: 0, events: 0, fault: 'server', status: 529, next: 'fallback' }, { target: 'ollama/qwen3:8b', key: -1, events: 3 }], { fallback: 1 })),
        ev('user', { text: 'next' }),
        ev('assistant', { text: 'b' }),
      ]),
    )
    const a = items[1] as AssistantItem
    expect(a.fallback).toEqual({ model: 'qwen3:8b', from: 'claude' })
    expect(fallbackLabel(a.fallback!)).toBe('Answered by qwen3:8b — claude kept failing')
    expect((items[3] as AssistantItem).fallback).toBeUndefined()
    expect(fallbackLabel({ model: 'x' })).toBe('Answered by x — the chosen model kept failing')
  })

  it('names both models and the reason of a fallback, and a switch at startup', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('fallback', { model: 'small', from: 'big', reason: 'cannot reach Ollama', startup: true }),
        ev('user', { text: 'q' }),
        ev('assistant', { text: 'a', model: 'small' }),
        ev('user', { text: 'q2' }),
        ev('fallback', { model: 'small', from: 'big', reason: 'cloud/big failed 3 time(s) in a row (last: 500); it is tried again in 30s' }),
        ev('assistant', { text: 'b', model: 'small' }),
      ]),
    )
    expect(fallbackLabel((items[1] as AssistantItem).fallback!)).toBe('Answered by small — big was not available at startup: cannot reach Ollama')
    expect(fallbackLabel((items[3] as AssistantItem).fallback!)).toBe(
      'Answered by small — big kept failing: cloud/big failed 3 time(s) in a row (last: 500); it is tried again in 30s',
    )
  })

  it('shows a call correction on the reply that follows it', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'q' }),
        ev('assistant', { text: '<tool_call>{"name": "read_file", "argu' }),
        ev('usage', { input_tokens: 10, output_tokens: 5 }),
        ev('model_call', report([{ target: 't', key: -1, events: 1 }])),
        ev('call_correction', { format: 'tool_call', reason: 'its JSON is not valid', text: 'Your last reply…', attempt: 1, max: 2 }),
        ev('assistant', { text: 'done' }),
      ]),
    )
    expect((items[2] as AssistantItem).notices).toEqual([
      'The model printed a tool call as text (tool_call), not run: its JSON is not valid. Asked it to send the call properly (1 of 2).',
    ])
    // The printed call is marked (shown folded), the answer after it is not.
    expect((items[1] as AssistantItem).printed).toBe(true)
    expect((items[2] as AssistantItem).printed).toBeUndefined()
  })

  it('does not carry a failed call\'s fallback or report to the next reply', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'q' }),
        ev('assistant', { text: 'first' }),
        ev('model_call', report([{ target: 't', key: -1, events: 1 }])),
        ev('user', { text: 'q2' }),
        ev('fallback', { model: 'other' }),
        ev('model_call', report([{ target: 't', key: -1, events: 0, fault: 'server' }, { target: 'o', key: -1, events: 0, fault: 'server' }], { outcome: 'server' })),
        ev('error', { kind: 'server', message: 'boom' }),
        ev('assistant', { text: 'after retry' }),
      ]),
    )
    expect(items.map((i) => i.kind)).toEqual(['user', 'assistant', 'user', 'error', 'assistant'])
    expect((items[1] as AssistantItem).call?.attempts).toHaveLength(1)
    expect((items[4] as AssistantItem).fallback).toBeUndefined()
    expect((items[4] as AssistantItem).call).toBeUndefined()
  })

  it('counts attempts in the usage line, with their faults in the tooltip', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'q' }),
        ev('retry', { reason: 'server: reset' }),
        ev('assistant', { text: 'a', model: 'm' }),
        ev('usage', { model: 'm', input_tokens: 10, output_tokens: 20 }),
        ev(
          'model_call',
          report([
            { target: 'ollama/m', key: -1, events: 4, fault: 'server', message: 'connection reset by peer', next: 'restart' },
            { target: 'ollama/m', key: -1, wait: 500_000_000, events: 9 },
          ]),
        ),
      ]),
    )
    const a = items[1] as AssistantItem
    const line = metaLine(a)!
    expect(line.text).toBe('m · 10 in · 20 out · 2 attempts')
    expect(line.title).toContain('1. ollama/m — server: connection reset by peer, 4 events streamed → restart')
    expect(line.title).toContain('2. ollama/m after 0.5 s — ok, 9 events streamed')

    // One attempt: nothing about attempts; a `retry` without a report says "retried once".
    expect(metaLine({ ...a, retries: undefined, call: { ...a.call!, attempts: [a.call!.attempts![1]!] } })!.text).toBe('m · 10 in · 20 out')
    expect(metaLine({ ...a, call: undefined })!.text).toBe('m · 10 in · 20 out · retried once')
    expect(metaLine({ ...a, usage: undefined, call: undefined, retries: undefined })).toBeNull()
  })

  it('lists rate limits and key rotation in the attempts tooltip', () => {
    const text = describeAttempts({
      model: 'gpt',
      target: 'openai/gpt',
      outcome: 'ok',
      duration: 0,
      attempts: [
        { target: 'openai/gpt', key: 0, events: 0, fault: 'rate_limited', status: 429, next: 'rotate_key' },
        { target: 'openai/gpt', key: 1, events: 12 },
      ],
    })
    expect(text).toBe('1. openai/gpt (key 1) — rate limited (HTTP 429) → rotate key\n2. openai/gpt (key 2) — ok, 12 events streamed')
  })

  it('skips event types it does not know, and tolerates odd payloads', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'q' }),
        ev('compaction', { summary: 'x' }),
        ev('retrieval', { paper: 'p', query: 'q', method: 'bm25', chunks: [], words: 0 }),
        ev('tool_call' as EventType, null), // not a Go type: skipped
        ev('assistant', { text: 'a' }),
        ev('model_call', 'garbage'),
        ev('fallback', null),
        ev('something_new' as EventType, [1, 2]), // a newer Tofu's type: skipped
      ]),
    )
    expect(items.map((i) => i.kind)).toEqual(['user', 'assistant'])
    expect((items[1] as AssistantItem).call).toBeUndefined()
  })
})
