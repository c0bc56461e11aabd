import { describe, expect, it } from 'vitest'
import { apply, emptyTranscript, formatUsage, interruptedLabel, project, withEvents, type AssistantItem, type TranscriptState } from './transcript'
import type { Event } from './types'

let seq = 0
function ev(type: string, data: unknown): Event {
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
