// Pure helpers for attaching MCP resources to a message: the composer's menu and the chips.
import type { McpResource } from './types'

/** A byte count as people read it: 812 B, 4.2 KB, 1.3 MB. */
export function formatSize(n: number): string {
  if (n < 1000) return `${n} B`
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)} KB`
  return `${(n / 1_000_000).toFixed(1)} MB`
}

/** The resources matching a filter (name, title, URI, description, server; every word). */
export function resourceMatches(list: McpResource[], query: string): McpResource[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return list
  return list.filter((r) => {
    const hay = [r.server, r.name, r.title ?? '', r.uri, r.description ?? ''].join(' ').toLowerCase()
    return words.every((w) => hay.includes(w))
  })
}

/** The resources grouped by server, in the order listed. */
export function byServer(list: McpResource[]): { server: string; resources: McpResource[] }[] {
  const groups: { server: string; resources: McpResource[] }[] = []
  for (const r of list) {
    const last = groups[groups.length - 1]
    if (last && last.server === r.server) last.resources.push(r)
    else groups.push({ server: r.server, resources: [r] })
  }
  return groups
}

/** A stable key of a resource (or template) in the menu. */
export const resourceKey = (r: { server: string; uri: string }) => `${r.server}\u0000${r.uri}`
