import { describe, expect, it } from 'vitest'
import { diffStat, filesChangedSince, recordedChanges } from './checkpoints'
import { emptyTranscript, project, withEvents, type UserItem } from './transcript'
import type { Event, EventType } from './types'

function log(...entries: [EventType, unknown][]): Event[] {
  return entries.map(([type, data], i) => ({ session: 's1', seq: i + 1, time: '', type, data }))
}

describe('checkpoints', () => {
  const events = log(
    ['user', { text: 'fix a' }], // 1
    ['assistant', { text: '', tool_calls: [{ id: 'c1', name: 'write_file', arguments: '{}' }] }], // 2
    ['tool_result', { call_id: 'c1', name: 'write_file', text: 'ok', checkpoint: [{ path: 'a.go', before: 'h1', after: 'h2' }, { path: 'new.md', after: 'h3' }] }], // 3
    ['assistant', { text: 'done' }], // 4
    ['user', { text: 'fix b' }], // 5
    ['assistant', { text: '', tool_calls: [{ id: 'c2', name: 'run_command', arguments: '{}' }] }], // 6
    ['tool_result', { call_id: 'c2', name: 'run_command', text: 'ok', checkpoint: [{ path: 'a.go', before: 'h2', after: 'h1' }] }], // 7
    ['assistant', { text: 'done' }], // 8
  )

  it('counts the files that differ from before a message, as the undo would', () => {
    const changes = recordedChanges(events)
    expect(changes).toHaveLength(3)
    // a.go went h1 → h2 → h1: back as it was; new.md was created.
    expect(filesChangedSince(changes, 1)).toEqual(['new.md'])
    expect(filesChangedSince(changes, 5)).toEqual(['a.go'])
    expect(filesChangedSince(changes, 8)).toEqual([])
  })

  it('puts the count on the user messages of the transcript; an undo clears it', () => {
    let users = project(withEvents(emptyTranscript, events)).filter((i): i is UserItem => i.kind === 'user')
    expect(users.map((u) => u.undo)).toEqual([1, 1])
    const undone = [...events, { session: 's1', seq: 9, time: '', type: 'checkpoint_restore' as EventType, data: { since: 1, files: [{ path: 'new.md', before: 'h3', after: '' }] } }]
    users = project(withEvents(emptyTranscript, undone)).filter((i): i is UserItem => i.kind === 'user')
    // Since the second message, new.md (there then, removed by the undo) differs too.
    expect(users.map((u) => u.undo)).toEqual([undefined, 2])
  })

  it('counts the lines a diff adds and removes', () => {
    expect(diffStat('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n+more\n')).toEqual({ added: 2, removed: 1 })
  })
})
