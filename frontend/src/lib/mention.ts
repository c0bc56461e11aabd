// @-mentions in the composer: "@" and a few letters of another conversation's title offer it;
// choosing one puts its compact reference (SessionService.Reference) in the message. Pure.
import type { SessionInfo } from './types'

/** The mention being typed before the cursor: where its "@" is and the words after it; null
 * when the cursor is not in one ("@" must start the text or follow a space, no line break). */
export function mentionAt(text: string, cursor: number): { start: number; query: string } | null {
  const before = text.slice(0, cursor)
  const at = before.lastIndexOf('@')
  if (at < 0 || (at > 0 && !/\s/.test(before[at - 1]!))) return null
  const query = before.slice(at + 1)
  if (query.includes('\n') || query.length > 40 || /^\s/.test(query)) return null
  return { start: at, query }
}

/** Conversations whose title holds the query (case-insensitive), the open one, papers' and
 * eval runs' sessions left out; at most six, in the list's order (newest first). */
export function mentionMatches(sessions: SessionInfo[], query: string, current: string | null): SessionInfo[] {
  const q = query.trim().toLowerCase()
  return sessions
    .filter((s) => s.id !== current && !s.paper && !s.eval && (s.title ?? '').toLowerCase().includes(q))
    .slice(0, 6)
}

/** The text with the mention (from its "@" to the cursor) replaced by the reference. */
export function replaceMention(text: string, start: number, cursor: number, reference: string): { text: string; cursor: number } {
  const insert = reference + '\n\n'
  return { text: text.slice(0, start) + insert + text.slice(cursor), cursor: start + insert.length }
}
