import { describe, expect, it } from 'vitest'
import { arrange, deletedToast, folderName } from './sidebar'
import type { SessionInfo } from './types'

const s = (id: string, extra: Partial<SessionInfo> = {}): SessionInfo => ({ id, title: id, created: '', updated: '', events: 1, ...extra }) as SessionInfo

describe('the sidebar arrangement', () => {
  it('pinned first, then folders in order, then the rest; papers and eval runs left out', () => {
    const a = arrange(
      [s('a', { pinned: true, folder: 'Work' }), s('b', { folder: 'Work' }), s('c'), s('d', { folder: 'Gone' }), s('e', { folder: 'Home' }), s('p', { paper: 'x' }), s('t', { eval: { suite: 's', instance: 'i' } })],
      ['Home', 'Work', 'Empty'],
    )
    expect(a.pinned.map((x) => x.id)).toEqual(['a'])
    expect(a.folders.map((f) => [f.name, f.sessions.map((x) => x.id)])).toEqual([
      ['Home', ['e']],
      ['Work', ['b']],
      ['Empty', []],
    ])
    expect(a.rest.map((x) => x.id)).toEqual(['c', 'd'])
  })

  it('checks folder names', () => {
    expect(folderName('  Work ', [])).toEqual({ name: 'Work' })
    expect(folderName('', [])).toEqual({ error: 'A folder needs a name' })
    expect(folderName('Work', ['Work'])).toHaveProperty('error')
    expect(folderName('Work', ['Work'], 'Work')).toEqual({ name: 'Work' })
    expect(folderName('x'.repeat(81), [])).toHaveProperty('error')
  })

  it('the undo toast names the conversation, cut short', () => {
    expect(deletedToast('Quokkas')).toBe('Deleted “Quokkas”')
    expect(deletedToast('x'.repeat(50))).toBe(`Deleted “${'x'.repeat(39)}…”`)
  })
})
