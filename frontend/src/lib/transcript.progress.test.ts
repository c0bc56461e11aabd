import { describe, expect, it } from 'vitest'
import { apply, emptyTranscript, project, withEvents, type AssistantItem } from './transcript'
import { progressLabel } from './tools'
import type { Event, EventType } from './types'

let seq = 0
function ev(type: EventType, data: unknown): Event {
  seq++
  return { session: 's1', seq, time: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, type, data }
}

const call = { id: 'c1', name: 'mcp__everything__trigger-long-running-operation', arguments: { duration: 2, steps: 4 } }

function cardOf(events: Event[]) {
  const state = apply(withEvents(emptyTranscript, events), { kind: 'stream', state: 'started' })
  const a = project(state).find((i): i is AssistantItem => i.kind === 'assistant' && !!i.tools)
  return a!.tools![0]
}

describe('project: a long call reports its progress', () => {
  it('keeps the last report while the call runs', () => {
    const c = cardOf([
      ev('user', { text: 'go' }),
      ev('assistant', { text: '', tool_calls: [call] }),
      ev('tool_progress', { call_id: 'c1', progress: 1, total: 4 }),
      ev('tool_progress', { call_id: 'c1', progress: 3, total: 4, message: 'step 3 of 4' }),
      ev('tool_progress', { call_id: 'other', progress: 9, total: 9 }),
    ])
    expect(c.status).toBe('running')
    expect(c.progress).toEqual({ call_id: 'c1', progress: 3, total: 4, message: 'step 3 of 4' })
    expect(progressLabel(c.progress)).toEqual({ fraction: 0.75, text: '3/4 · step 3 of 4' })
  })

  it('stops updating once the result is in', () => {
    const c = cardOf([
      ev('user', { text: 'go' }),
      ev('assistant', { text: '', tool_calls: [call] }),
      ev('tool_progress', { call_id: 'c1', progress: 4, total: 4 }),
      ev('tool_result', { call_id: 'c1', name: call.name, text: 'done' }),
      ev('tool_progress', { call_id: 'c1', progress: 1, total: 4 }),
    ])
    expect(c.status).toBe('ok')
    expect(c.progress?.progress).toBe(4)
  })
})

describe('progressLabel', () => {
  it('says steps without a total, and nothing for nothing', () => {
    expect(progressLabel(undefined)).toBeNull()
    expect(progressLabel({ progress: 2, message: 'Write hello.txt' })).toEqual({ fraction: null, text: '2 · Write hello.txt' })
    expect(progressLabel({ progress: 0, total: 10 })).toEqual({ fraction: 0, text: '0/10' })
    expect(progressLabel({ progress: 15, total: 10 })?.fraction).toBe(1)
    expect(progressLabel({ progress: 0.5, total: 1 })?.text).toBe('0.5/1')
  })
})
