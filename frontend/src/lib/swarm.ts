// The dashboard of a swarm (the `swarm` events of one spawn_agents call), projected from the
// log: each agent's role, objective, dependencies, state, child session, tokens and time.
import type { Swarm, SwarmRole, SwarmState } from './protocol.gen'

export type SwarmAgentView = {
  index: number
  role: SwarmRole
  objective: string
  dependsOn: number[]
  model: string
  state: SwarmState
  /** The child session its turns run in ('' before it starts). */
  session: string
  attempt: number
  tokens: number
  durationMs: number
  /** The first line of its result, or its error. */
  finding: string
  error: string
  /** waiting: what its approval is about (its own session's card answers it). */
  asking: string
}

export type SwarmView = {
  callId: string
  agents: SwarmAgentView[]
  parallel: number
  rounds: number
  merges: string[]
  done: boolean
}

export function emptySwarm(callId: string): SwarmView {
  return { callId, agents: [], parallel: 0, rounds: 0, merges: [], done: false }
}

/** Applies one swarm event to a dashboard (a new object; the old one is not changed). */
export function applySwarm(v: SwarmView, ev: Swarm): SwarmView {
  const next: SwarmView = { ...v, agents: v.agents.slice(), merges: v.merges }
  switch (ev.kind) {
    case 'graph':
      for (const a of ev.agents ?? []) {
        next.agents[a.index] = {
          index: a.index,
          role: a.role,
          objective: a.objective,
          dependsOn: a.depends_on ?? [],
          model: a.model ?? '',
          state: 'pending',
          session: '',
          attempt: 0,
          tokens: 0,
          durationMs: 0,
          finding: '',
          error: '',
          asking: '',
        }
      }
      if (ev.parallel) next.parallel = ev.parallel
      break
    case 'agent': {
      const s = ev.agent
      const a = s && next.agents[s.index]
      if (!s || !a) break
      next.agents[s.index] = {
        ...a,
        state: s.state,
        session: s.session || a.session,
        attempt: s.attempt,
        tokens: s.tokens ?? a.tokens,
        durationMs: s.duration_ms ?? a.durationMs,
        finding: firstLine(s.result ?? ''),
        error: s.error ?? '',
        asking: s.asking ?? '',
      }
      break
    }
    case 'round':
      next.rounds++
      break
    case 'merge':
      next.merges = [...v.merges, ev.text ?? '']
      break
    case 'synthesis':
      next.done = true
      break
  }
  return next
}

/** Counts of agents by state, for the card's head ("3 running · 5 done · 1 failed"). */
export function swarmCounts(v: SwarmView): string {
  const order: SwarmState[] = ['waiting', 'running', 'retrying', 'pending', 'done', 'failed', 'skipped', 'stopped']
  const n = new Map<SwarmState, number>()
  for (const a of v.agents) if (a) n.set(a.state, (n.get(a.state) ?? 0) + 1)
  return order.filter((s) => n.get(s)).map((s) => `${n.get(s)} ${s}`).join(' · ')
}

/** The depth of each agent in the graph (0: no dependencies), for drawing it in levels. */
export function swarmLevels(v: SwarmView): number[] {
  const level: number[] = []
  const at = (i: number, seen: Set<number>): number => {
    if (level[i] !== undefined) return level[i]
    if (seen.has(i)) return 0
    seen.add(i)
    const a = v.agents[i]
    let l = 0
    for (const d of a?.dependsOn ?? []) if (v.agents[d]) l = Math.max(l, at(d, seen) + 1)
    level[i] = l
    return l
  }
  v.agents.forEach((a, i) => a && at(i, new Set()))
  return level
}

function firstLine(s: string): string {
  const line = s.trim().split('\n')[0] ?? ''
  return line.length > 120 ? line.slice(0, 119) + '…' : line
}
