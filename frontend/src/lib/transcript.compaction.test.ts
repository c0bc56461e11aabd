import { describe, expect, it } from 'vitest'
import { compactionLabel, project, type AssistantItem, type CompactionItem } from './transcript'
import type { Event, EventType } from './types'

let seq = 0
function ev(type: EventType, data: unknown): Event {
  seq++
  return { session: 's1', seq, time: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, type, data }
}

const compaction = {
  id: 'rabc123', from: 0, to: 12, hash: 'r1', summary: '1. Primary Request …', model: 'qwen3:4b',
  trigger: 'auto', tokens_before: 41200, tokens_after: 9800, threshold_tokens: 40000,
}

function log(): Event[] {
  seq = 0
  return [
    ev('user', { text: 'fix the tests' }),
    ev('compaction', compaction),
    ev('notice', { text: 'Context compacted: 12 earlier messages summarized (41,200 → 9,800 tokens); undo in the transcript.' }),
    ev('assistant', { text: 'On it.' }),
    ev('usage', { input_tokens: 9900, output_tokens: 10 }),
    ev('turn_end', { reason: 'done', steps: 1 }),
  ]
}

const markers = (items: ReturnType<typeof project>) => items.filter((i): i is CompactionItem => i.kind === 'compaction')

describe('compaction in the transcript', () => {
  it('shows a marker with the messages, the tokens and Undo, without repeating the notice', () => {
    const items = project({ events: log(), live: null })
    const [m] = markers(items)
    expect(m).toMatchObject({ id: 'rabc123', messages: 12, tokensBefore: 41200, tokensAfter: 9800, threshold: 40000, undone: false, canUndo: true })
    expect(items.map((i) => i.kind)).toEqual(['user', 'compaction', 'assistant', 'turn'])
    expect(compactionLabel(m).text).toBe('Context compacted — 12 messages summarized (41,200 → 9,800 tokens)')
    expect(compactionLabel(m).title).toContain('threshold of 40,000 tokens')
    const reply = items.find((i) => i.kind === 'assistant') as AssistantItem
    expect(reply.notices ?? []).toEqual([])
  })

  it('offers no Undo while a turn runs', () => {
    const [m] = markers(project({ events: log().slice(0, 3), live: null, running: true }))
    expect(m.canUndo).toBe(false)
  })

  it('reads "Compaction undone" after compaction_undo', () => {
    const events = [...log(), ev('compaction_undo', { id: 'rabc123' })]
    const [m] = markers(project({ events, live: null }))
    expect(m.undone).toBe(true)
    expect(m.canUndo).toBe(false)
    expect(compactionLabel(m).text).toBe('Compaction undone')
  })

  it('names an overflow and ignores an undo of another compaction', () => {
    const events = [ev('user', { text: 'go' }), ev('compaction', { ...compaction, trigger: 'overflow', threshold_tokens: 0 }), ev('compaction_undo', { id: 'rother' })]
    const [m] = markers(project({ events, live: null }))
    expect(m.undone).toBe(false)
    expect(compactionLabel(m).title).toMatch(/^The model refused the request as too long/)
  })

  it("names /compact and the user's instruction", () => {
    const events = [ev('user', { text: 'go' }), ev('compaction', { ...compaction, trigger: 'manual', instruction: 'keep the file names' })]
    const [m] = markers(project({ events, live: null }))
    expect(m.instruction).toBe('keep the file names')
    expect(compactionLabel(m).text).toBe('Context compacted as you asked — 12 messages summarized (41,200 → 9,800 tokens)')
    expect(compactionLabel(m).title).toMatch(/^Compacted with \/compact \("keep the file names"\)/)
  })

  it('keeps other notices', () => {
    seq = 0
    const events = [
      ev('user', { text: 'go' }),
      ev('notice', { text: 'Context is at 93% of the compaction threshold (37,200 of 40,000 tokens): past it, earlier turns are summarized.' }),
      ev('assistant', { text: 'ok' }),
    ]
    const reply = project({ events, live: null }).find((i) => i.kind === 'assistant') as AssistantItem
    expect(reply.notices).toEqual([expect.stringMatching(/^Context is at 93%/)])
  })
})
