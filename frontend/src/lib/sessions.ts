import type { SessionInfo } from './types'

/** Newest activity first (the Go side sorts too; events can arrive in any order). */
export function byActivity(list: SessionInfo[]): SessionInfo[] {
  const t = (s: SessionInfo) => Date.parse(s.updated || s.created) || 0
  return [...list].sort((a, b) => t(b) - t(a))
}

/** Go's store.DefaultTitle: the title of a conversation nobody named yet. */
export const DEFAULT_TITLE = 'New conversation'

/**
 * An untouched "New conversation" (store.SessionInfo.Stub): no message, no workspace, no title
 * of its own. A conversation exists once it has a message: a stub the user leaves is removed.
 */
export function isStub(s: SessionInfo | null | undefined): boolean {
  return !!s && !s.events && !s.workspace && !s.paper && !s.purpose && (!s.title || s.title === DEFAULT_TITLE)
}

/** A short, calm timestamp for the sidebar: "14:05", "Yesterday", "Mon", "12 Mar". */
export function shortTime(iso: string, now = new Date()): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const day = (x: Date) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime()
  const days = Math.round((day(now) - day(d)) / 86_400_000)
  if (days <= 0) return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
  if (days === 1) return 'Yesterday'
  if (days < 7) return d.toLocaleDateString([], { weekday: 'short' })
  if (d.getFullYear() === now.getFullYear()) return d.toLocaleDateString([], { day: 'numeric', month: 'short' })
  return d.toLocaleDateString([], { day: 'numeric', month: 'short', year: 'numeric' })
}

/**
 * A search snippet as text: the Markdown it was cut from (`**bold**`, fences, headings, list
 * markers, links) without its marks, on one line. Cut snippets may hold half a pair: every mark
 * goes, paired or not.
 */
export function plainSnippet(s: string): string {
  return s
    .replace(/```[\w+-]*/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/gm, '')
    .replace(/(\*\*|__|~~|`)/g, '')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim()
}
