// The plan the model keeps with todo_write (backend/tools/assist): the result's meta is the whole
// list. Pure: reading it from a result and finding the conversation's latest.
import type { Item } from './transcript'

export type PlanStatus = 'pending' | 'in_progress' | 'done'
export type PlanItem = { content: string; status: PlanStatus }

const statuses: readonly string[] = ['pending', 'in_progress', 'done']

/** A todo_write result's meta as a plan; null when it is not one. */
export function planOf(meta: unknown): PlanItem[] | null {
  if (typeof meta !== 'object' || meta === null) return null
  const items = (meta as { items?: unknown }).items
  if (items === null || items === undefined) return []
  if (!Array.isArray(items)) return null
  const out: PlanItem[] = []
  for (const it of items) {
    if (typeof it !== 'object' || it === null) return null
    const { content, status } = it as { content?: unknown; status?: unknown }
    if (typeof content !== 'string' || typeof status !== 'string' || !statuses.includes(status)) return null
    out.push({ content, status: status as PlanStatus })
  }
  return out
}

/** The conversation's plan: the latest todo_write that succeeded, with the key of the reply
 * that wrote it; null when the model has kept none (or cleared it). */
export function latestPlan(items: readonly Item[]): { plan: PlanItem[]; at: string } | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!
    if (it.kind !== 'assistant' || !it.tools) continue
    for (let k = it.tools.length - 1; k >= 0; k--) {
      const c = it.tools[k]!
      if (c.name !== 'todo_write' || c.status !== 'ok') continue
      const plan = planOf(c.result?.meta)
      if (plan === null) continue
      return plan.length > 0 ? { plan, at: it.key } : null
    }
  }
  return null
}

/** "2 of 5 done" */
export function planProgress(plan: readonly PlanItem[]): string {
  return `${plan.filter((p) => p.status === 'done').length} of ${plan.length} done`
}
