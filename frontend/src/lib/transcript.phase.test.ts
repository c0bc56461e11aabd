import { describe, expect, it } from 'vitest'
import { apply, emptyTranscript, phaseLabel, project, turnEndLabel, withEvents, type AssistantItem, type PhaseItem, type TurnItem } from './transcript'
import type { Event, EventType } from './types'

let seq = 0
function ev(type: EventType, data: unknown): Event {
  seq++
  return { session: 's1', seq, time: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, type, data }
}

const write = { id: 'w1', name: 'write_file', arguments: { path: 'a.go', content: 'x' } }

/** An autonomous run: plan, a worker round, a critique that sends the worker back, a second round, a STOP. */
function autonomousLog(): Event[] {
  seq = 0
  return [
    ev('user', { text: 'fix the tests' }),
    ev('phase', { role: 'planner', iteration: 1, state: 'start', brief: 'Task: fix the tests' }),
    ev('assistant', { text: '1. Fix a.go\n2. Run go test' }),
    ev('usage', { input_tokens: 50, output_tokens: 10 }),
    ev('phase', { role: 'planner', iteration: 1, state: 'end', plan: '1. Fix a.go\n2. Run go test', reason: 'done' }),
    ev('phase', { role: 'worker', iteration: 1, state: 'start', brief: 'Plan: …' }),
    ev('assistant', { text: '', tool_calls: [write] }),
    ev('usage', { input_tokens: 100, output_tokens: 20 }),
    ev('tool_result', { call_id: 'w1', name: 'write_file', text: 'wrote a.go', duration_ms: 1 }),
    ev('assistant', { text: 'Fixed a.go.' }),
    ev('usage', { input_tokens: 120, output_tokens: 5 }),
    ev('phase', { role: 'worker', iteration: 1, state: 'end', reason: 'done' }),
    ev('phase', { role: 'critic', iteration: 1, state: 'start', brief: 'Task: …' }),
    ev('assistant', { text: 'Looks fine but TestB still fails.\nVERDICT: STOP' }),
    ev('usage', { input_tokens: 80, output_tokens: 12 }),
    ev('phase', {
      role: 'critic', iteration: 1, state: 'end', verdict: 'CONTINUE_WORKER', claimed: 'STOP',
      gate: 'the feedback still lists failures: Looks fine but TestB still fails.', feedback: 'Looks fine but TestB still fails.', reason: 'done',
    }),
    ev('phase', { role: 'worker', iteration: 2, state: 'start', brief: 'A reviewer checked round 1…' }),
    ev('assistant', { text: 'Fixed TestB.' }),
    ev('usage', { input_tokens: 150, output_tokens: 5 }),
    ev('phase', { role: 'worker', iteration: 2, state: 'end', reason: 'done' }),
    ev('phase', { role: 'critic', iteration: 2, state: 'start' }),
    ev('assistant', { text: 'All tests pass.\nVERDICT: STOP' }),
    ev('usage', { input_tokens: 90, output_tokens: 8 }),
    ev('phase', { role: 'critic', iteration: 2, state: 'end', verdict: 'STOP', feedback: 'All tests pass.', reason: 'done' }),
    ev('turn_end', { reason: 'done', steps: 6 }),
  ]
}

const phases = (items: ReturnType<typeof project>) => items.filter((i): i is PhaseItem => i.kind === 'phase')

describe('project: autonomous runs', () => {
  it('puts a marker at each phase start and at each verdict, in log order', () => {
    const items = project(withEvents(emptyTranscript, autonomousLog()))
    expect(items.map((i) => (i.kind === 'phase' ? `${i.role}:${i.state}` : i.kind))).toEqual([
      'user',
      'planner:start', 'assistant',
      'worker:start', 'assistant', 'assistant',
      'critic:start', 'assistant', 'critic:end',
      'worker:start', 'assistant',
      'critic:start', 'assistant', 'critic:end',
      'turn',
    ])
    expect(phases(items).map((p) => phaseLabel(p).text)).toEqual([
      'Planner: writing a plan',
      'Worker: round 1, carrying out the plan',
      'Critic: checking round 1',
      'Critic’s verdict: not done, another worker round (it said done, but the check did not pass) — Looks fine but TestB still fails.',
      'Worker: round 2, from the critic’s feedback',
      'Critic: checking round 2',
      'Critic’s verdict: done, the work holds — All tests pass.',
    ])
    // The gate's reason is in the tooltip; the tool call of round 1 is a card as usual.
    const gated = phases(items)[3]
    expect(phaseLabel(gated).title).toContain('Not accepted: the feedback still lists failures')
    // The critic's reply without the verdict line the harness reads (the marker says it in words).
    const critiques = items.filter((i): i is AssistantItem => i.kind === 'assistant' && /TestB still fails|All tests pass/.test(i.text))
    expect(critiques.map((c) => c.text)).toEqual(['Looks fine but TestB still fails.', 'All tests pass.'])
    const worker = items[4] as AssistantItem
    expect(worker.tools?.[0]).toMatchObject({ id: 'w1', status: 'ok', phase: 'worker' })
    // The turn line sums every phase's tokens and counts the worker rounds.
    const turn = items[items.length - 1] as TurnItem
    expect(turn).toMatchObject({ reason: 'done', rounds: 2, tokens: { input: 590, output: 60, calls: 6 }, continuable: false })
  })

  it('labels a replan, long feedback, and a critique without feedback', () => {
    const base = { kind: 'phase' as const, key: 'k', seq: 1, time: '', iteration: 2, verdict: '' as const, claimed: '' as const, gate: '', feedback: '' }
    expect(phaseLabel({ ...base, role: 'planner', state: 'start' }).text).toBe('Planner: writing a new plan')
    const long = 'x'.repeat(200)
    const text = phaseLabel({ ...base, role: 'critic', state: 'end', verdict: 'CONTINUE_PLANNER', feedback: `${long}\nsecond line` }).text
    expect(text.startsWith('Critic’s verdict: not done, back to the planner for a new plan — xxx')).toBe(true)
    expect(text.endsWith('…')).toBe(true)
    expect(text).not.toContain('second line')
    expect(phaseLabel({ ...base, role: 'critic', state: 'end', verdict: 'STOP' }).text).toBe('Critic’s verdict: done, the work holds')
    // No raw verdict names reach the page (regression, issue 36).
    for (const v of ['STOP', 'CONTINUE_WORKER', 'CONTINUE_PLANNER'] as const) expect(phaseLabel({ ...base, role: 'critic', state: 'end', verdict: v, claimed: v }).text).not.toMatch(/STOP|CONTINUE/)
  })

  it('shows the typing dots between phases while the run goes on, and Continue when the log stops there', () => {
    const events = autonomousLog().slice(0, 13) // up to the critic's start
    const running = project(apply(withEvents(emptyTranscript, events), { kind: 'stream', state: 'started' }))
    const last = running[running.length - 1]
    expect(last).toMatchObject({ kind: 'assistant', key: 'live', streaming: true })
    // Without a running turn the log stopped mid-run (Tofu was killed): Continue.
    const stopped = project(withEvents(emptyTranscript, events))
    expect(stopped[stopped.length - 1]).toMatchObject({ kind: 'interrupted', reason: 'unfinished', action: 'continue' })
  })

  it('says why a run stopped at a limit or stuck, and offers Continue', () => {
    seq = 0
    const events = [
      ev('user', { text: 'go' }),
      ev('phase', { role: 'worker', iteration: 1, state: 'start' }),
      ev('phase', { role: 'worker', iteration: 1, state: 'end' }),
      ev('phase', { role: 'worker', iteration: 2, state: 'start' }),
      ev('phase', { role: 'worker', iteration: 2, state: 'end' }),
      ev('turn_end', { reason: 'max_iterations', steps: 4 }),
    ]
    const items = project(withEvents(emptyTranscript, events))
    const turn = items[items.length - 1] as TurnItem
    expect(turn.continuable).toBe(true)
    expect(turnEndLabel(turn)).toBe('Stopped at the round limit (2 worker rounds)')
    expect(turnEndLabel({ ...turn, reason: 'stuck' })).toBe('Stopped: the critic repeated the same critique')
  })

  it('skips phase events it cannot read', () => {
    seq = 0
    const items = project(withEvents(emptyTranscript, [ev('user', { text: 'go' }), ev('phase', { role: 'oracle', state: 'start' }), ev('phase', 'garbage')]))
    expect(items.map((i) => i.kind)).toEqual(['user'])
  })
})
