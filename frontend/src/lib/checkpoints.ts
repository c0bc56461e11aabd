// Checkpoints (docs/CHECKPOINTS.md): the files an agent's calls changed, recorded on their
// tool results (`checkpoint`) and on undos (`checkpoint_restore`). A user message after which
// files changed, and are not back as they were, offers "Undo changes since this message".
import type { Event } from './types'

export type FileChange = { path: string; before?: string; after?: string }

/** The undo's plan as Go returns it (checkpoint.Plan). */
export type UndoStep = { path: string; action: 'restore' | 'remove' | 'recreate'; diff?: string; binary?: boolean }
export type UndoConflict = { path: string; reason: string; diff?: string; binary?: boolean }
export type UndoPlan = { since: number; steps: UndoStep[] | null; conflicts: UndoConflict[] | null }

type Obj = Record<string, unknown>
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x)

function changesOf(list: unknown): FileChange[] {
  if (!Array.isArray(list)) return []
  return list.filter(isObj).map((c) => ({ path: String(c.path ?? ''), before: typeof c.before === 'string' ? c.before : '', after: typeof c.after === 'string' ? c.after : '' }))
}

/** Every recorded change of the log (all branches: the files went through all of them), in order. */
export function recordedChanges(events: Event[]): { seq: number; change: FileChange }[] {
  const out: { seq: number; change: FileChange }[] = []
  for (const e of events) {
    if (!(e.seq > 0) || !isObj(e.data)) continue
    if (e.type === 'tool_result') for (const c of changesOf(e.data.checkpoint)) out.push({ seq: e.seq, change: c })
    else if (e.type === 'checkpoint_restore') for (const c of changesOf(e.data.files)) out.push({ seq: e.seq, change: c })
  }
  return out
}

/** The files that differ from what they were before event `since`, as Go's plan counts them. */
export function filesChangedSince(changes: { seq: number; change: FileChange }[], since: number): string[] {
  const first = new Map<string, string>()
  const last = new Map<string, string>()
  for (const { seq, change } of changes) {
    if (seq <= since) continue
    if (!first.has(change.path)) first.set(change.path, change.before ?? '')
    last.set(change.path, change.after ?? '')
  }
  return [...first.keys()].filter((p) => first.get(p) !== last.get(p)).sort()
}

/** Counts the lines a unified diff adds and removes. */
export function diffStat(diff: string): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue
    if (line.startsWith('+')) added++
    else if (line.startsWith('-')) removed++
  }
  return { added, removed }
}
