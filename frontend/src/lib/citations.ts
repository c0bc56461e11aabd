// Page citations in answers about a paper: "[p. 4]", "[pp. 4-5]", "[p. 4, 6]", "[p. 3; p. 7]".
// Pure: the reader turns them into buttons that scroll the PDF.

export type Segment = { kind: 'text'; text: string } | { kind: 'cite'; text: string; pages: number[] }

const CITE = /\[(?:pp?\.\s*\d+(?:\s*[-–]\s*\d+)?(?:\s*[,;]\s*(?:pp?\.\s*)?\d+(?:\s*[-–]\s*\d+)?)*)\]/g

/** The pages a citation names, in order, without duplicates; a range yields its first page. */
export function citedPages(cite: string): number[] {
  const out: number[] = []
  const body = cite.replace(/^\[|\]$/g, '')
  for (const part of body.split(/[,;]/)) {
    const m = /(\d+)/.exec(part)
    if (m) {
      const n = Number(m[1])
      if (n > 0 && !out.includes(n)) out.push(n)
    }
  }
  return out
}

/** Splits text into plain runs and citations. */
export function parseCitations(text: string): Segment[] {
  const out: Segment[] = []
  let last = 0
  for (const m of text.matchAll(CITE)) {
    const i = m.index ?? 0
    if (i > last) out.push({ kind: 'text', text: text.slice(last, i) })
    out.push({ kind: 'cite', text: m[0], pages: citedPages(m[0]) })
    last = i + m[0].length
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) })
  return out
}

/** Every page cited in text, in order of first citation. */
export function allCitedPages(text: string): number[] {
  const out: number[] = []
  for (const s of parseCitations(text)) if (s.kind === 'cite') for (const p of s.pages) if (!out.includes(p)) out.push(p)
  return out
}

/** The pages of the passages an answer was given: the only pages it can cite from evidence. */
export function evidencePages(chunks: readonly { pages?: number[] | null }[] | null | undefined): number[] {
  const out: number[] = []
  for (const c of chunks ?? []) for (const p of c.pages ?? []) if (!out.includes(p)) out.push(p)
  return out.sort((a, b) => a - b)
}

/**
 * Turns the citations in sanitized HTML into buttons (one per page). Only text outside tags and
 * outside <code>/<pre> is touched; what is inserted is built from digits only, so the result
 * stays as safe as its input. Given the pages in evidence (those of the passages the answer
 * was given), a page outside them is marked as unsupported instead of linked: the model cited
 * a page it was not shown, and a link there would lend the claim a source it does not have.
 */
export function linkCitations(html: string, evidence?: readonly number[]): string {
  let inCode = 0
  return html
    .split(/(<[^>]*>)/)
    .map((part) => {
      if (part.startsWith('<')) {
        if (/^<(code|pre)\b/i.test(part)) inCode++
        else if (/^<\/(code|pre)>/i.test(part)) inCode = Math.max(0, inCode - 1)
        return part
      }
      if (inCode) return part
      return part.replace(CITE, (cite) => {
        const pages = citedPages(cite)
        const buttons = pages
          .map((p) =>
            evidence && !evidence.includes(p)
              ? `<span class="citation-unsupported" data-testid="citation-unsupported" data-page="${p}" title="Page ${p} is not among the passages this answer was given">p.&nbsp;${p}?</span>`
              : `<button type="button" class="citation" data-testid="citation" data-page="${p}">p.&nbsp;${p}</button>`,
          )
          .join(' ')
        return `<span class="cite">${buttons}</span>`
      })
    })
    .join('')
}
