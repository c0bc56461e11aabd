import { describe, expect, it } from 'vitest'
import { outcome, suiteGroups } from './evalSuites'
import type { SessionInfo } from './types'

const s = (id: string, updated: string, over: Partial<SessionInfo> = {}): SessionInfo => ({ id, title: id, created: updated, updated, events: 3, ...over })

describe('suiteGroups', () => {
  it('groups a suite\'s sessions by instance id, newest suite first, leaving others out', () => {
    const list = [
      s('plain', '2026-12-01T10:00:00Z'),
      s('b', '2026-12-01T08:00:00Z', { eval: { suite: 'old', instance: 'x-1', graded: true, resolved: true, tests_passed: 2 } }),
      s('c', '2026-12-01T09:00:00Z', { eval: { suite: 'new', instance: 'z-2', graded: true, tests_passed: 1, tests_failed: 1 } }),
      s('d', '2026-12-01T09:30:00Z', { eval: { suite: 'new', instance: 'a-1' } }),
    ]
    const g = suiteGroups(list)
    expect(g.map((x) => x.suite)).toEqual(['new', 'old'])
    expect(g[0].sessions.map((x) => x.id)).toEqual(['d', 'c'])
    expect([g[0].graded, g[0].resolved, g[1].graded, g[1].resolved]).toEqual([1, 0, 1, 1])
  })
  it('keeps two runs of a suite apart', () => {
    const g = suiteGroups([
      s('a', '2026-12-01T08:00:00Z', { eval: { suite: 'x', instance: 't-1', run: 'base' } }),
      s('b', '2026-12-01T09:00:00Z', { eval: { suite: 'x', instance: 't-1', run: 'ablation' } }),
    ])
    expect(g.map((x) => x.run)).toEqual(['ablation', 'base'])
  })
  it('says each outcome', () => {
    expect(outcome(s('a', '', { eval: { suite: 'x', instance: 'a', graded: true, resolved: true, tests_passed: 3 } })).label).toBe('resolved, 3/3 tests')
    expect(outcome(s('a', '', { eval: { suite: 'x', instance: 'a', graded: true, tests_passed: 1, tests_failed: 2 } })).kind).toBe('fail')
    expect(outcome(s('a', '', { eval: { suite: 'x', instance: 'a' } })).kind).toBe('open')
  })
})
