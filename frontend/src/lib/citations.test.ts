import { describe, expect, it } from 'vitest'
import { allCitedPages, citedPages, evidencePages, linkCitations, parseCitations } from './citations'
import { filterPapers, highlightBoxes, retrievalsByReply, toBase64, boxStyle, byline } from './papers'
import type { Event, EventType, PaperInfo } from './types'

describe('citations', () => {
  it('parses the forms models write', () => {
    expect(citedPages('[p. 4]')).toEqual([4])
    expect(citedPages('[pp. 4-5]')).toEqual([4])
    expect(citedPages('[p. 4, 6]')).toEqual([4, 6])
    expect(citedPages('[p. 3; p. 7]')).toEqual([3, 7])
    expect(citedPages('[p.12]')).toEqual([12])
  })
  it('splits text around citations and ignores other brackets', () => {
    const segs = parseCitations('Yields fell [p. 4]. See [12] and [p. 6; p. 7].')
    expect(segs.map((s) => s.kind)).toEqual(['text', 'cite', 'text', 'cite', 'text'])
    expect(allCitedPages('a [p. 4] b [p. 4, 9] [1]')).toEqual([4, 9])
    expect(parseCitations('no cites [1], [page 3]')).toHaveLength(1)
  })
  it('links citations in HTML but not inside code or tags', () => {
    const html = '<p title="[p. 2]">Claim [p. 4].</p><pre><code>[p. 5]</code></pre>'
    const out = linkCitations(html)
    expect(out).toContain('data-page="4"')
    expect(out).not.toContain('data-page="5"')
    expect(out).not.toContain('data-page="2"')
    expect(out).toContain('title="[p. 2]"')
  })
  it('marks a citation of a page the answer was not given, instead of linking it', () => {
    const evidence = evidencePages([{ pages: [3, 4] }, { pages: [7] }, {}])
    expect(evidence).toEqual([3, 4, 7])
    const out = linkCitations('<p>Two sets [p. 3]. Hard ones [p. 9]. Both [p. 4; p. 12].</p>', evidence)
    expect(out).toContain('data-testid="citation" data-page="3"')
    expect(out).toContain('data-testid="citation" data-page="4"')
    expect(out).toContain('data-testid="citation-unsupported" data-page="9"')
    expect(out).toContain('data-testid="citation-unsupported" data-page="12"')
    expect(out).not.toContain('data-testid="citation" data-page="9"')
    // Without evidence (a report, an answer whose retrieval is unknown) every citation links.
    expect(linkCitations('<p>[p. 9]</p>')).toContain('data-testid="citation" data-page="9"')
  })
})

describe('papers', () => {
  const p = (title: string, authors: string[], year?: number): PaperInfo => ({
    id: title, name: title + '.pdf', title, authors, year, pages: 1, size: 1, words: 1, chunks: 1, added: '',
  })
  it('filters by every word', () => {
    const list = [p('Stop AGI claims', ['Patrick Altmeyer'], 2024), p('SPECTER', ['Arman Cohan'], 2020)]
    expect(filterPapers(list, 'altmeyer 2024').map((x) => x.title)).toEqual(['Stop AGI claims'])
    expect(filterPapers(list, '')).toHaveLength(2)
    expect(filterPapers(list, 'nothing')).toHaveLength(0)
  })
  it('writes a byline', () => {
    expect(byline(p('x', ['A One', 'B Two', 'C Three'], 2020))).toBe('One et al. · 2020')
    expect(byline(p('x', []))).toBe('')
  })
  it('pairs replies with their retrieval and finds the boxes of a cited page', () => {
    const ev = (seq: number, type: EventType, data: unknown): Event => ({ session: 's', seq, time: '', type, data })
    const r = { paper: 'x', query: 'q', method: 'bm25', words: 10, chunks: [{ id: 2, pages: [4] }, { id: 1, pages: [3, 4] }] }
    const events = [ev(1, 'user', { text: 'q' }), ev(2, 'retrieval', r), ev(3, 'assistant', { text: 'a [p. 4]' }), ev(4, 'user', { text: 'q2' }), ev(5, 'assistant', { text: 'b' })]
    const m = retrievalsByReply(events)
    expect(m.get(3)?.chunks?.[0]?.id).toBe(2)
    expect(m.has(5)).toBe(false)
    const chunks = [
      { id: 1, pages: [3, 4], text: '', words: 1, boxes: [{ page: 3, bbox: { x0: 0, y0: 0, x1: 1, y1: 1 } }] },
      { id: 2, pages: [4], text: '', words: 1, boxes: [{ page: 4, bbox: { x0: 10, y0: 700, x1: 300, y1: 760 } }] },
    ]
    expect(highlightBoxes(chunks, m.get(3), 4)).toEqual([{ x0: 10, y0: 700, x1: 300, y1: 760 }])
    expect(highlightBoxes(chunks, m.get(3), 9)).toEqual([])
    expect(boxStyle({ x0: 10, y0: 700, x1: 300, y1: 760 }, 792, 1)).toBe('left:8px;top:30px;width:294px;height:64px')
  })
  it('encodes large byte arrays', () => {
    const b = new Uint8Array(200000).map((_, i) => i % 251)
    expect(atob(toBase64(b)).length).toBe(200000)
  })
})
