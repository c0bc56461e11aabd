import { describe, expect, it } from 'vitest'
import { latestPlan, planOf, planProgress } from './plan'
import type { Item } from './transcript'

const plan = { items: [{ content: 'Read the code', status: 'done' }, { content: 'Fix the parser', status: 'in_progress' }, { content: 'Run the tests', status: 'pending' }] }

const reply = (key: string, tools: { name: string; status: string; meta?: unknown }[]): Item =>
  ({
    kind: 'assistant', key, seq: 1, time: '', text: '', reasoning: '', streaming: false, interrupted: false,
    tools: tools.map((t, i) => ({ id: `${key}-${i}`, name: t.name, args: {}, status: t.status, result: { text: '', meta: t.meta } })),
  }) as unknown as Item

describe('the plan', () => {
  it('reads a todo_write result and refuses other shapes', () => {
    expect(planOf(plan)).toEqual(plan.items)
    expect(planOf({ items: null })).toEqual([])
    expect(planOf({ items: [{ content: 'x', status: 'completed' }] })).toBeNull()
    expect(planOf('text')).toBeNull()
    expect(planProgress(planOf(plan)!)).toBe('1 of 3 done')
  })

  it('is the latest todo_write that succeeded', () => {
    const later = { items: [{ content: 'Read the code', status: 'done' }, { content: 'Fix the parser', status: 'done' }] }
    const items = [
      reply('a', [{ name: 'todo_write', status: 'ok', meta: plan }]),
      reply('b', [{ name: 'read_files', status: 'ok' }, { name: 'todo_write', status: 'error', meta: later }]),
    ]
    expect(latestPlan(items)).toEqual({ plan: plan.items, at: 'a' })
    expect(latestPlan([...items, reply('c', [{ name: 'todo_write', status: 'ok', meta: later }])])?.at).toBe('c')
    expect(latestPlan([...items, reply('d', [{ name: 'todo_write', status: 'ok', meta: { items: [] } }])])).toBeNull()
    expect(latestPlan([reply('e', [{ name: 'read_files', status: 'ok' }])])).toBeNull()
  })
})
