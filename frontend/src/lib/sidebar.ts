// The sidebar's conversation list, arranged: pinned first, then each folder (in the user's
// order) with its conversations, then the rest; newest activity first within each (the sessions
// of eval suites are grouped apart, EvalSuites.svelte). Pure.
import { t as tr } from './i18n/index.svelte'
import type { SessionInfo } from './types'

export type Arranged = {
  pinned: SessionInfo[]
  folders: { name: string; sessions: SessionInfo[] }[]
  rest: SessionInfo[]
}

/** Arranges conversations (already newest first) under the folders; a conversation naming a
 * folder that no longer exists goes with the rest; pinned ones show only among the pinned. */
export function arrange(sessions: SessionInfo[], folders: string[]): Arranged {
  const out: Arranged = { pinned: [], folders: folders.map((name) => ({ name, sessions: [] })), rest: [] }
  const byName = new Map(out.folders.map((f) => [f.name, f]))
  for (const s of sessions) {
    if (s.paper || s.eval) continue // a paper's sessions open in the reader; eval runs group apart
    if (s.pinned) out.pinned.push(s)
    else if (s.folder && byName.has(s.folder)) byName.get(s.folder)!.sessions.push(s)
    else out.rest.push(s)
  }
  return out
}

/** The MIME type a dragged conversation carries (its id). */
export const DRAG_TYPE = 'application/x-tofu-session'

/** A folder name as the user typed it, or an error to show. */
export function folderName(raw: string, existing: string[], current = ''): { name: string } | { error: string } {
  const name = raw.trim()
  if (!name) return { error: tr('folder.needsName') }
  if ([...name].length > 80) return { error: tr('folder.tooLong') }
  if (name !== current && existing.includes(name)) return { error: tr('folder.exists', { name }) }
  return { name }
}

/** What the undo toast says after a deletion. */
export function deletedToast(title: string): string {
  const t = title.length > 40 ? title.slice(0, 39) + '…' : title
  return tr('folder.deleted', { title: t || tr('common.newConversation') })
}
