import { describe, expect, it } from 'vitest'
import { apply, emptyTranscript, project, withEvents, type AssistantItem } from './transcript'
import { swarmCounts, swarmLevels } from './swarm'
import type { Event, EventType } from './types'

let seq = 0
function ev(type: EventType, data: unknown): Event {
  seq++
  return { session: 's1', seq, time: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, type, data }
}

const spawn = { id: 'sw', name: 'spawn_agents', arguments: { agents: [{ objective: 'a' }, { objective: 'b' }, { objective: 'c', depends_on: [0, 1] }] } }
const graph = {
  call_id: 'sw', kind: 'graph', round: 1, parallel: 8,
  agents: [
    { index: 0, objective: 'find A', role: 'researcher' },
    { index: 1, objective: 'find B', role: 'researcher' },
    { index: 2, objective: 'write', role: 'writer', depends_on: [0, 1] },
  ],
}
const agent = (index: number, state: string, extra: object = {}) => ({ call_id: 'sw', kind: 'agent', round: 1, agent: { index, state, attempt: 1, ...extra } })

function swarmOf(events: Event[]) {
  const state = apply(withEvents(emptyTranscript, events), { kind: 'stream', state: 'started' })
  const a = project(state).find((i): i is AssistantItem => i.kind === 'assistant' && !!i.tools)
  return a!.tools![0]
}

describe('project: a swarm under its spawn_agents call', () => {
  it('shows each agent live, with its child session, while the call runs', () => {
    seq = 0
    const call = swarmOf([
      ev('user', { text: 'go' }),
      ev('assistant', { tool_calls: [spawn] }),
      ev('tool_start', { call_id: 'sw', name: 'spawn_agents' }),
      ev('swarm', graph),
      ev('swarm', agent(0, 'running', { session: 'child0' })),
      ev('swarm', agent(1, 'running', { session: 'child1' })),
      ev('swarm', agent(0, 'done', { session: 'child0', result: 'A is 1\nmore', tokens: 120, duration_ms: 900 })),
    ])
    expect(call.status).toBe('running')
    const sw = call.swarm!
    expect(sw.parallel).toBe(8)
    expect(sw.agents.map((a) => a.state)).toEqual(['done', 'running', 'pending'])
    expect(sw.agents[0]).toMatchObject({ session: 'child0', finding: 'A is 1', tokens: 120, durationMs: 900, role: 'researcher' })
    expect(swarmCounts(sw)).toBe('1 running · 1 pending · 1 done')
    expect(swarmLevels(sw)).toEqual([0, 0, 1])
  })

  it('ends done with the synthesis as the result; failures and merges are kept', () => {
    seq = 0
    const call = swarmOf([
      ev('user', { text: 'go' }),
      ev('assistant', { tool_calls: [spawn] }),
      ev('swarm', graph),
      ev('swarm', agent(0, 'done', { session: 'c0', result: 'A' })),
      ev('swarm', agent(1, 'failed', { session: 'c1', error: 'its turn ended: error' })),
      ev('swarm', agent(2, 'skipped', { error: 'agent 1, whose result it needs, failed' })),
      ev('swarm', { call_id: 'sw', kind: 'merge', round: 1, text: 'agent 0: merged a.go' }),
      ev('swarm', { call_id: 'sw', kind: 'round', round: 1, text: 'synthesis' }),
      ev('swarm', { call_id: 'sw', kind: 'synthesis', round: 1, text: 'All done.' }),
      ev('tool_result', { call_id: 'sw', name: 'spawn_agents', text: 'All done.' }),
    ])
    expect(call.status).toBe('ok')
    expect(call.swarm).toMatchObject({ done: true, rounds: 1, merges: ['agent 0: merged a.go'] })
    expect(call.swarm!.agents[1]).toMatchObject({ state: 'failed', error: 'its turn ended: error' })
    expect(swarmCounts(call.swarm!)).toBe('1 done · 1 failed · 1 skipped')
  })

  it('says which agent waits for an approval, and on what', () => {
    seq = 0
    const call = swarmOf([
      ev('user', { text: 'go' }),
      ev('assistant', { tool_calls: [spawn] }),
      ev('swarm', graph),
      ev('swarm', agent(0, 'running', { session: 'c0' })),
      ev('swarm', agent(0, 'waiting', { session: 'c0', asking: '/ws/notes.txt' })),
    ])
    expect(call.swarm!.agents[0]).toMatchObject({ state: 'waiting', session: 'c0', asking: '/ws/notes.txt' })
    expect(swarmCounts(call.swarm!)).toBe('1 waiting · 2 pending')
  })
})
