import { describe, expect, it } from 'vitest'
import { apply, emptyTranscript, project, withEvents, type AssistantItem, type Item, type UserItem } from './transcript'
import { activePath, forks, treeOf } from './branches'
import type { Event, EventType } from './types'

function log(...entries: [EventType, unknown][]): Event[] {
  return entries.map(([type, data], i) => ({ session: 's1', seq: i + 1, time: `2025-01-01T00:00:${String(i + 1).padStart(2, '0')}Z`, type, data }))
}

const texts = (items: Item[]) => items.filter((i): i is UserItem | AssistantItem => i.kind === 'user' || i.kind === 'assistant').map((i) => i.text)

describe('branches', () => {
  it('shows the edited message and its reply, not the old version, with < 2/2 >', () => {
    const events = log(
      ['user', { text: 'hello' }], // 1
      ['assistant', { text: 'hi' }], // 2
      ['user', { text: 'apples?' }], // 3
      ['assistant', { text: 'APPLES' }], // 4
      ['branch', { from: 2, reason: 'edit' }], // 5
      ['user', { text: 'bananas?' }], // 6
      ['assistant', { text: 'BANANAS' }], // 7
    )
    const items = project(withEvents(emptyTranscript, events))
    expect(texts(items)).toEqual(['hello', 'hi', 'bananas?', 'BANANAS'])
    const edited = items.find((i) => i.kind === 'user' && i.seq === 6) as UserItem
    expect(edited.branch).toEqual({ index: 1, count: 2, prev: 3, next: null })
    expect(items.filter((i) => i.kind === 'user' && i.branch)).toHaveLength(1)
    // Regenerate is offered on the reply that ends each turn.
    expect(items.filter((i) => i.kind === 'assistant' && i.regenerate).map((i) => i.seq)).toEqual([2, 7])
  })

  it('puts < 1/3 > on the first reply after switching back, and the next message continues it', () => {
    const events = log(
      ['user', { text: 'q' }], // 1
      ['assistant', { text: 'first' }], // 2
      ['branch', { from: 1, reason: 'regenerate' }], // 3
      ['assistant', { text: 'second' }], // 4
      ['branch', { from: 1, reason: 'regenerate' }], // 5
      ['assistant', { text: 'third' }], // 6
    )
    let state = withEvents(emptyTranscript, events)
    let reply = project(state).find((i) => i.kind === 'assistant') as AssistantItem
    expect(reply.text).toBe('third')
    expect(reply.branch).toEqual({ index: 2, count: 3, prev: 3, next: null })
    // The switch arrives live, as an event of the session's topic.
    state = apply(state, { kind: 'event', event: { session: 's1', seq: 7, time: '', type: 'branch_switch', data: { head: 2 } } })
    state = withEvents(state, [
      { session: 's1', seq: 8, time: '', type: 'user', data: { text: 'more' } },
      { session: 's1', seq: 9, time: '', type: 'assistant', data: { text: 'MORE' } },
    ])
    const items = project(state)
    expect(texts(items)).toEqual(['q', 'first', 'more', 'MORE'])
    reply = items.find((i) => i.kind === 'assistant') as AssistantItem
    expect(reply.branch).toEqual({ index: 0, count: 3, prev: null, next: 3 })
  })

  it('edits of the first message fork from the start of the log', () => {
    const events = log(['user', { text: 'a' }], ['assistant', { text: 'A' }], ['branch', { from: 0, reason: 'edit' }], ['user', { text: 'b' }])
    const t = treeOf(events)
    expect(activePath(events, t).map((e) => e.seq)).toEqual([3, 4])
    expect(forks(t)).toEqual([{ at: 0, alternatives: [1, 3], index: 1 }])
    const first = project(withEvents(emptyTranscript, events))[0] as UserItem
    expect(first.branch).toEqual({ index: 1, count: 2, prev: 1, next: null })
  })

  it('ignores a branch to an event that is not before it, as Go does', () => {
    const events = log(['user', { text: 'a' }], ['branch', { from: 9, reason: 'edit' }], ['assistant', { text: 'A' }], ['branch_switch', { head: 2 }])
    expect(activePath(events).map((e) => e.seq)).toEqual([1, 3])
    expect(texts(project(withEvents(emptyTranscript, events)))).toEqual(['a', 'A'])
  })

  it('offers Regenerate once per agent turn, on its last reply, and never while a turn runs', () => {
    const events = log(
      ['user', { text: 'fix it' }], // 1
      ['assistant', { text: 'Reading.', tool_calls: [{ id: 'c1', name: 'read_files', arguments: '{}' }] }], // 2
      ['tool_result', { call_id: 'c1', name: 'read_files', text: 'ok' }], // 3
      ['assistant', { text: 'Fixed.' }], // 4
      ['turn_end', { reason: 'done', steps: 2 }], // 5
    )
    const state = withEvents(emptyTranscript, events)
    expect(project(state).filter((i) => i.kind === 'assistant' && i.regenerate).map((i) => i.seq)).toEqual([4])
    expect(project({ ...state, running: true }).some((i) => i.kind === 'assistant' && i.regenerate)).toBe(false)
  })

  it('leaves a log without branches as it is', () => {
    const events = log(['user', { text: 'a' }], ['assistant', { text: 'A' }])
    expect(activePath(events)).toBe(events)
    expect(project(withEvents(emptyTranscript, events)).some((i) => (i.kind === 'user' || i.kind === 'assistant') && i.branch)).toBe(false)
  })
})
