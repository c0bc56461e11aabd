// Pure helpers of the paper library and reader.
import type { BBox, Chunk, Event, PaperInfo, Retrieval } from './types'

/** "Altmeyer, Demetriou et al. · 2024" */
export function byline(p: PaperInfo): string {
  const a = p.authors ?? []
  const names = a.length > 2 ? `${surname(a[0])} et al.` : a.map(surname).join(', ')
  return [names, p.year ? String(p.year) : ''].filter(Boolean).join(' · ')
}

function surname(name: string): string {
  const parts = name.trim().split(/\s+/)
  return parts[parts.length - 1] ?? name
}

/** Papers whose title, authors, year or file name contain every word of the query. */
export function filterPapers(list: PaperInfo[], query: string): PaperInfo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return list
  return list.filter((p) => {
    const hay = [p.title, p.name, (p.authors ?? []).join(' '), p.year ? String(p.year) : ''].join(' ').toLowerCase()
    return words.every((w) => hay.includes(w))
  })
}

/** The retrieval that grounded each assistant reply, keyed by the reply's seq. */
export function retrievalsByReply(events: Event[]): Map<number, Retrieval> {
  const out = new Map<number, Retrieval>()
  let last: Retrieval | null = null
  for (const ev of events) {
    if (ev.type === 'retrieval') last = ev.data as Retrieval
    else if (ev.type === 'user') last = null
    else if (ev.type === 'assistant' && last) out.set(ev.seq, last)
  }
  return out
}

/**
 * The boxes to highlight on page when a reply citing it is clicked: those of the retrieved
 * chunks that are on that page (best-ranked first); none when nothing retrieved is there.
 */
export function highlightBoxes(chunks: Chunk[], retrieval: Retrieval | undefined, page: number): BBox[] {
  if (!retrieval) return []
  const byId = new Map(chunks.map((c) => [c.id, c]))
  for (const r of retrieval.chunks ?? []) {
    const c = byId.get(r.id)
    if (!c || !c.pages.includes(page)) continue
    return (c.boxes ?? []).filter((b) => b.page === page).map((b) => b.bbox)
  }
  return []
}

/** A PDF box (points, origin bottom-left) as CSS pixels on a page rendered at scale. */
export function boxStyle(b: BBox, pageHeight: number, scale: number): string {
  const pad = 2
  const left = b.x0 * scale - pad
  const top = (pageHeight - b.y1) * scale - pad
  return `left:${left}px;top:${top}px;width:${(b.x1 - b.x0) * scale + 2 * pad}px;height:${(b.y1 - b.y0) * scale + 2 * pad}px`
}

/** Base64 of bytes, in slices (String.fromCharCode over a whole PDF overflows the stack). */
export function toBase64(bytes: Uint8Array): string {
  let bin = ''
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(bin)
}

/** The user's language as an English name, for the translation target ("French"). */
export function defaultLanguage(locale = typeof navigator !== 'undefined' ? navigator.language : 'en'): string {
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'language' }).of(locale.split('-')[0])
    if (name && !/^english$/i.test(name)) return name
  } catch {
    // fall through
  }
  return 'French'
}

/** A file name for an export. */
export function exportName(title: string, what: string): string {
  const base = title.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '').slice(0, 60) || 'paper'
  return `${base}-${what}.md`
}

/** Whether a dropped or chosen file looks like a PDF. */
export function isPDF(f: { name: string; type: string }): boolean {
  return f.type === 'application/pdf' || /\.pdf$/i.test(f.name)
}

/** An import the drop zone reports: `own` when this page started it (and clears it itself). */
export type Importing = { name: string; done: number; total: number; own?: boolean }

/**
 * The drop zone's progress line after a message of the papers topic: a progress message shows
 * its page; the end of an import the page did not start (a forwarded `tofu paper add` or
 * `tofu open`), imported or not, clears the line. The library list changes nothing here.
 */
export function importingAfter(cur: Importing | null, msg: unknown): Importing | null {
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return cur
  const m = msg as { kind?: string; name?: string; done?: number; total?: number }
  if (m.kind === 'progress') return { name: m.name ?? '', done: m.done ?? 0, total: m.total ?? 0, own: cur?.own }
  if (m.kind === 'import_end' && cur && !cur.own && cur.name === m.name) return null
  return cur
}
