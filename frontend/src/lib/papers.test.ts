import { describe, expect, it } from 'vitest'
import { importingAfter, type Importing } from './papers'

// The papers topic's messages as the library sends them (backend/paper/library/import.go).
const progress = (name: string, done: number, total: number) => ({ kind: 'progress', name, done, total })
const end = (name: string) => ({ kind: 'import_end', name })
const run = (start: Importing | null, msgs: unknown[]) => msgs.reduce<Importing | null>(importingAfter, start)

describe('importingAfter', () => {
  it('clears the line when an import the page did not start ends imported (forwarded `tofu paper add`)', () => {
    const shown = run(null, [progress('paper.pdf', 1, 13), progress('paper.pdf', 13, 13)])
    expect(shown).toEqual({ name: 'paper.pdf', done: 13, total: 13, own: undefined })
    expect(run(shown, [[{ id: 'a', name: 'paper.pdf' }], end('paper.pdf')])).toBeNull()
  })

  it('clears the line when such an import fails (no new library comes)', () => {
    expect(run(null, [progress('broken.pdf', 3, 13), end('broken.pdf')])).toBeNull()
  })

  it('leaves the page’s own import to clear itself, and another file’s end changes nothing', () => {
    const own: Importing = { name: 'mine.pdf', done: 0, total: 0, own: true }
    const mine = run(own, [progress('mine.pdf', 4, 9)])
    expect(mine).toEqual({ name: 'mine.pdf', done: 4, total: 9, own: true })
    expect(run(mine, [end('mine.pdf')])).toBe(mine)
    const other = run(null, [progress('a.pdf', 2, 5)])
    expect(run(other, [end('b.pdf')])).toBe(other)
  })

  it('ignores the library list and messages of other kinds', () => {
    const shown = run(null, [progress('paper.pdf', 2, 5)])
    expect(run(shown, [[], { kind: 'open' }, null, 'x'])).toBe(shown)
  })
})
