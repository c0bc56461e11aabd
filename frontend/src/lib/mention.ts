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

/** Files of the workspace for an @-mention, best first, at most `limit`: fuzzy by path (the
 * query's characters in order, `/` and spaces ignored). A match in the file's name beats one
 * across folders, a match at the name's start or as one run beats a scattered one, and then
 * shorter paths come first. An empty query offers the shallowest files. */
export function fileMatches(paths: readonly string[], query: string, limit = 8): string[] {
  const q = query.toLowerCase().replace(/[\s]/g, '')
  if (!q) return [...paths].sort((a, b) => depth(a) - depth(b) || a.length - b.length || a.localeCompare(b)).slice(0, limit)
  const scored: { path: string; score: number }[] = []
  for (const path of paths) {
    const score = fuzzyScore(path.toLowerCase(), q)
    if (score > 0) scored.push({ path, score })
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path))
  return scored.slice(0, limit).map((s) => s.path)
}

const depth = (p: string): number => p.split('/').length

/** 0 when q is not a subsequence of path; else higher for better matches. */
function fuzzyScore(path: string, q: string): number {
  const name = path.slice(path.lastIndexOf('/') + 1)
  if (name.startsWith(q)) return 1000
  if (name.includes(q)) return 900
  if (path.includes(q)) return 800 - (path.indexOf(q) > 0 ? 1 : 0)
  // A subsequence: runs of consecutive characters score more; the name's part counts double.
  let score = 1
  let at = -1
  const nameStart = path.length - name.length
  for (const ch of q) {
    const next = path.indexOf(ch, at + 1)
    if (next < 0) return 0
    score += next === at + 1 ? 5 : 1
    if (next >= nameStart) score += 2
    at = next
  }
  return Math.min(score, 700)
}

/** The text with the mention (from its "@" to the cursor) replaced by `@path ` : the file
 * itself goes with the message as an attachment, the text says which one the user means. */
export function replaceFileMention(text: string, start: number, cursor: number, path: string): { text: string; cursor: number } {
  const insert = '@' + path + ' '
  return { text: text.slice(0, start) + insert + text.slice(cursor), cursor: start + insert.length }
}
