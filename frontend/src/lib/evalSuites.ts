import type { SessionInfo } from './types'

/** A suite's sessions (tofu eval tasks), grouped for the sidebar. */
export interface SuiteGroup {
  suite: string
  run: string // which run of the suite (the report's name, or when it started)
  sessions: SessionInfo[] // by instance id
  graded: number
  resolved: number
}

/** The sessions that ran a suite's tasks, a group per run of a suite, the most recently active first. */
export function suiteGroups(list: SessionInfo[]): SuiteGroup[] {
  const groups = new Map<string, SuiteGroup>()
  for (const s of list) {
    if (!s.eval) continue
    const key = `${s.eval.suite}\u0000${s.eval.run ?? ''}`
    let g = groups.get(key)
    if (!g) {
      g = { suite: s.eval.suite, run: s.eval.run ?? '', sessions: [], graded: 0, resolved: 0 }
      groups.set(key, g)
    }
    g.sessions.push(s)
    if (s.eval.graded) g.graded++
    if (s.eval.resolved) g.resolved++
  }
  const latest = (g: SuiteGroup) => Math.max(...g.sessions.map((s) => Date.parse(s.updated || s.created) || 0))
  const out = [...groups.values()]
  for (const g of out) g.sessions.sort((a, b) => (a.eval!.instance < b.eval!.instance ? -1 : a.eval!.instance > b.eval!.instance ? 1 : 0))
  return out.sort((a, b) => latest(b) - latest(a))
}

/** A task's outcome in a word: resolved, failed (with its tests), or still running/ungraded. */
export function outcome(s: SessionInfo): { mark: string; label: string; kind: 'ok' | 'fail' | 'open' } {
  const e = s.eval
  if (!e?.graded) return { mark: '…', label: 'not graded', kind: 'open' }
  const tests = `${e.tests_passed ?? 0}/${(e.tests_passed ?? 0) + (e.tests_failed ?? 0)} tests`
  return e.resolved ? { mark: '✓', label: `resolved, ${tests}`, kind: 'ok' } : { mark: '✗', label: `not resolved, ${tests}`, kind: 'fail' }
}
