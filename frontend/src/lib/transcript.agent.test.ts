import { describe, expect, it } from 'vitest'
import { apply, emptyTranscript, project, turnEndLabel, turnLine, withEvents, type AssistantItem, type InterruptedItem, type TurnItem } from './transcript'
import type { Event, EventType } from './types'

let seq = 0
function ev(type: EventType, data: unknown): Event {
  seq++
  return { session: 's1', seq, time: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, type, data }
}

const read = { id: 'c1', name: 'read_files', arguments: { reads: [{ path: 'notes.txt' }] } }
const edit = { id: 'c2', name: 'edit_files', arguments: { edits: [{ path: 'notes.txt', old_string: 'soy', new_string: 'soybeans' }] } }
const asked = { call_id: 'c2', name: 'edit_files', subject: '/ws/notes.txt', reason: 'writes in the workspace need approval' }

function agentLog(): Event[] {
  seq = 0
  return [
    ev('user', { text: 'fix notes' }),
    ev('assistant', { text: 'Looking.', tool_calls: [read, edit], model: 'm' }),
    ev('usage', { input_tokens: 100, output_tokens: 10 }),
    ev('tool_result', { call_id: 'c1', name: 'read_files', text: 'tofu is made of soy', duration_ms: 3 }),
    ev('approval', asked),
  ]
}

const running = (events: Event[]) => apply(withEvents(emptyTranscript, events), { kind: 'stream', state: 'started' })
const toolsOf = (items: ReturnType<typeof project>) => items.filter((i): i is AssistantItem => i.kind === 'assistant').flatMap((a) => a.tools ?? [])

describe('project: agent turns', () => {
  it('pairs tool calls with their results and shows a pending approval while the turn runs', () => {
    // The turn runs: stream started, the reply event cleared the live text.
    const state = withEvents(running([]), agentLog())
    expect(state.running).toBe(true)
    const items = project(state)
    const [r, w] = toolsOf(items)
    expect(r).toMatchObject({ id: 'c1', name: 'read_files', status: 'ok', result: { text: 'tofu is made of soy', durationMs: 3 } })
    expect(w).toMatchObject({ id: 'c2', status: 'waiting', approval: { subject: '/ws/notes.txt', decision: '', state: 'pending' } })
    // Nothing is "typing" while the turn waits for the user.
    expect(items.some((i) => i.kind === 'assistant' && i.streaming)).toBe(false)
  })

  it('answered approval: the call runs and its result is shown; the turn line sums usage', () => {
    const events = [
      ...agentLog(),
      ev('approval', { ...asked, decision: 'allow', by: 'user' }),
      ev('tool_result', { call_id: 'c2', name: 'edit_files', text: 'notes.txt: edited', meta: { files: [{ path: '/ws/notes.txt', diff: '@@ -1 +1 @@\n-soy\n+soybeans\n', added: 1, removed: 1 }] }, duration_ms: 2 }),
      ev('assistant', { text: 'Done.' }),
      ev('usage', { input_tokens: 150, output_tokens: 5 }),
      ev('turn_end', { reason: 'done', steps: 2 }),
    ]
    const items = project(apply(withEvents(running([]), events), { kind: 'stream', state: 'ended' }))
    expect(items.map((i) => i.kind)).toEqual(['user', 'assistant', 'assistant', 'turn'])
    const w = toolsOf(items)[1]
    expect(w).toMatchObject({ status: 'ok', approval: { decision: 'allow', by: 'user', state: 'answered' } })
    const turn = items[3] as TurnItem
    expect(turn).toMatchObject({ reason: 'done', steps: 2, tokens: { input: 250, output: 15, calls: 2 }, continuable: false })
    expect(turnLine(turn)).toMatch(/^2 steps · 250 in · 15 out · \d+\.\d s$/)
    expect(turnEndLabel(turn)).toBe('')
    // Per-call usage is folded into the turn line.
    expect((items[1] as AssistantItem).agent).toBe(true)
    expect((items[2] as AssistantItem).agent).toBe(true)
  })

  it('a denied call is "denied", an interrupted one "interrupted"', () => {
    const events = [
      ...agentLog(),
      ev('approval', { ...asked, decision: 'deny', by: 'user' }),
      ev('tool_result', { call_id: 'c2', name: 'edit_files', text: 'The user denied this call', is_error: true }),
    ]
    expect(toolsOf(project(withEvents(running([]), events)))[1].status).toBe('denied')
    seq = 0
    const cut = [ev('user', { text: 'x' }), ev('assistant', { tool_calls: [{ id: 'k', name: 'run_command', arguments: { command: 'sleep 9' } }] }), ev('tool_result', { call_id: 'k', name: 'run_command', text: '[interrupted by the user]', interrupted: true })]
    expect(toolsOf(project(withEvents(emptyTranscript, cut)))[0].status).toBe('interrupted')
  })

  it('stopped while asking: the approval is expired, the call not run, and Continue is offered', () => {
    const events = [...agentLog(), ev('interrupted', { reason: 'user' }), ev('turn_end', { reason: 'interrupted', steps: 1 })]
    const items = project(withEvents(emptyTranscript, events))
    expect(items.map((i) => i.kind)).toEqual(['user', 'assistant', 'interrupted', 'turn'])
    expect(toolsOf(items)[1]).toMatchObject({ status: 'not_run', approval: { state: 'expired' } })
    expect(items[2]).toMatchObject({ retryable: true, action: 'continue' })

    // Continue runs: the old question shows as pending again until the new one arrives.
    const cont = project(running(events))
    expect(toolsOf(cont)[1]).toMatchObject({ status: 'waiting', approval: { state: 'pending' } })
    expect(cont.find((i) => i.kind === 'interrupted')).toMatchObject({ retryable: false })
  })

  it('a log that stops mid-turn (Tofu was killed) shows the approval expired and an unfinished notice', () => {
    const items = project(withEvents(emptyTranscript, agentLog()))
    expect(toolsOf(items)[1]).toMatchObject({ status: 'not_run', approval: { state: 'expired' } })
    const last = items[items.length - 1] as InterruptedItem
    expect(last).toMatchObject({ kind: 'interrupted', reason: 'unfinished', retryable: true, action: 'continue' })
  })

  it('between steps of a running turn the reply shows as being written', () => {
    seq = 0
    const events = [ev('user', { text: 'x' }), ev('assistant', { tool_calls: [read] }), ev('tool_result', { call_id: 'c1', name: 'read_files', text: 'ok' })]
    const items = project(withEvents(running([]), events))
    expect(items[items.length - 1]).toMatchObject({ kind: 'assistant', key: 'live', streaming: true })
    // While a tool runs, the card says so instead.
    seq = 0
    const busy = project(withEvents(running([]), [ev('user', { text: 'x' }), ev('assistant', { tool_calls: [read] })]))
    expect(busy[busy.length - 1]).toMatchObject({ kind: 'assistant', streaming: false })
    expect(toolsOf(busy)[0].status).toBe('running')
  })

  it('calls of a reply cut off mid-stream, or superseded by a new message, never run', () => {
    seq = 0
    const events = [
      ev('user', { text: 'x' }),
      ev('assistant', { text: 'a', tool_calls: [read], interrupted: true }),
      ev('interrupted', { reason: 'user' }),
      ev('turn_end', { reason: 'interrupted', steps: 1 }),
    ]
    expect(toolsOf(project(running(events)))[0].status).toBe('not_run')
    seq = 0
    const superseded = [ev('user', { text: 'x' }), ev('assistant', { tool_calls: [edit] }), ev('approval', asked), ev('turn_end', { reason: 'interrupted' }), ev('user', { text: 'never mind' })]
    expect(toolsOf(project(running(superseded)))[0]).toMatchObject({ status: 'not_run', approval: { state: 'expired' } })
  })

  it('an error in an agent turn is continued, a limit offers Continue on the turn line', () => {
    seq = 0
    const err = [ev('user', { text: 'x' }), ev('error', { kind: 'server', message: 'boom', retryable: true }), ev('turn_end', { reason: 'error', steps: 1, detail: 'boom' })]
    expect(project(withEvents(emptyTranscript, err))[1]).toMatchObject({ kind: 'error', retryable: true, action: 'continue' })
    seq = 0
    const limit = [ev('user', { text: 'x' }), ev('assistant', { tool_calls: [read] }), ev('tool_result', { call_id: 'c1', text: 'ok' }), ev('turn_end', { reason: 'max_steps', steps: 50 })]
    const items = project(withEvents(emptyTranscript, limit))
    const turn = items[items.length - 1] as TurnItem
    expect(turn.continuable).toBe(true)
    expect(turnEndLabel(turn)).toBe('Stopped at the step limit (50 steps)')
  })

  it('a notice about the model call attaches to its reply', () => {
    seq = 0
    const items = project(withEvents(emptyTranscript, [ev('user', { text: 'q' }), ev('notice', { text: 'llama2 does not support tools: answering without them' }), ev('assistant', { text: 'hi' })]))
    expect(items[1]).toMatchObject({ kind: 'assistant', notices: ['llama2 does not support tools: answering without them'] })
  })

  it('plain chat is unchanged: Retry, no turn line', () => {
    seq = 0
    const items = project(withEvents(emptyTranscript, [ev('user', { text: 'q' }), ev('assistant', { text: 'partial', interrupted: true }), ev('interrupted', { reason: 'user' })]))
    expect(items.map((i) => i.kind)).toEqual(['user', 'assistant', 'interrupted'])
    expect(items[2]).toMatchObject({ retryable: true, action: 'retry' })
  })
})
