// @vitest-environment jsdom
import { JSDOM } from 'jsdom'
import DOMPurify from 'dompurify'
import { Marked } from 'marked'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { loadHighlight } from './highlight'
import { IncrementalMarkdown, clearBlockCache, isOpenFence, renderBlock, renderMarkdown, type Block, type Renderers } from './markdown'
import { STREAM_DOCS as DOCS, STREAM_PIECES, chunks, rng } from './markdown.fixtures'

const join = (blocks: Block[]) => blocks.map((b) => b.html).join('')

// Marked's HTML without DOMPurify, for the tests of where the text is cut into blocks at
// thousands of positions: under jsdom a sanitize costs 1-5 ms (a new Document per call), which
// made these tests take 5-12 s under load. What the cutting does to sanitized HTML is checked
// by one random run per document below and by the sanitizing tests.
const plainMarked = new Marked({ gfm: true, breaks: false })
const plainRender = (src: string) => plainMarked.parse(src, { async: false }) as string
const plain: Renderers = { block: plainRender, tail: plainRender, full: plainRender, lex: (src) => plainMarked.lexer(src) }
// The app's renderers (IncrementalMarkdown's defaults).
const sanitizing: Partial<Renderers> = {}

/** Streams text in chunks like the app (one update per frame), then the final update. */
function stream(text: string, seed: number, max = 12, render: Partial<Renderers> = {}) {
  const md = new IncrementalMarkdown(render)
  let acc = ''
  const frames: Block[][] = []
  for (const c of chunks(text, seed, max)) {
    acc += c
    frames.push(md.update(acc, true))
  }
  return { md, frames, last: frames[frames.length - 1]!, final: md.update(text, false) }
}

beforeEach(() => clearBlockCache())
afterEach(() => {
  vi.restoreAllMocks()
  document.body.innerHTML = ''
})

// Code highlights as in the window once highlight.js has loaded (highlight.lazy.test.ts: before).
beforeAll(() => loadHighlight())

describe('IncrementalMarkdown', () => {
  for (const [name, doc] of Object.entries(DOCS)) {
    it(`streams "${name}" in random chunks to the one-shot render`, () => {
      // Chunks of one character cut the text at every position (whatever the seed), longer
      // chunks at random positions three ways each; then one run through the sanitizing
      // renderers the app uses.
      const runs = [{ seed: 1, max: 1 }, ...[1, 2, 42].flatMap((seed) => [4, 20].map((max) => ({ seed, max })))]
      for (const [render, cases] of [[plain, runs], [sanitizing, [{ seed: 7, max: 5 }]]] as const) {
        const oneShot = (render.full ?? renderMarkdown)(doc)
        for (const { seed, max } of cases) {
          const { frames, last, final } = stream(doc, seed * 100 + max, max, render)
          expect(join(final)).toBe(oneShot)
          // Already the last streamed frame shows what the one-shot render shows (the text is
          // complete, only open fences are shown without highlighting).
          if (name !== 'unclosed' && name !== 'script') expect(join(last)).toBe(oneShot)
          // Finished blocks are append-only: a key once seen keeps its HTML.
          const seen = new Map<string, string>()
          for (const f of frames) {
            for (const b of f) {
              if (b.key === 'tail') continue
              if (seen.has(b.key)) expect(b.html).toBe(seen.get(b.key))
              seen.set(b.key, b.html)
            }
            expect(f.filter((b) => b.key === 'tail').length).toBeLessThanOrEqual(1)
          }
        }
      }
    })
  }

  it('random documents in random chunks: the last frame and the final render equal the one-shot render', () => {
    const pieces = STREAM_PIECES
    const next = rng(2024)
    for (let n = 0; n < 40; n++) {
      const parts: string[] = []
      const count = 2 + Math.floor(next() * 6)
      for (let i = 0; i < count; i++) parts.push(pieces[Math.floor(next() * pieces.length)]!)
      // Blocks separated by a blank line, by nothing, or by extra blank lines.
      const doc = parts.reduce((acc, p) => acc + ['\n', '', '\n\n'][Math.floor(next() * 3)]! + p)
      const oneShot = plainRender(doc)
      const { last, final } = stream(doc, n, 1 + Math.floor(next() * 10), plain)
      expect(join(final), doc).toBe(oneShot)
      expect(join(last), doc).toBe(oneShot)
    }
  })

  it('renders the same DOM as the one-shot render when its blocks are inserted one by one', () => {
    const doc = [DOCS.prose, DOCS.fences, DOCS.lists, DOCS.tables, DOCS.mixed].join('')
    const { last } = stream(doc, 7, 9)
    const a = document.createElement('div')
    for (const b of last) a.insertAdjacentHTML('beforeend', b.html)
    const b = document.createElement('div')
    b.innerHTML = renderMarkdown(doc)
    expect(a.innerHTML).toBe(b.innerHTML)
  })

  it('cuts the reply into finished blocks while it streams', () => {
    const doc = DOCS.prose! + DOCS.lists! + DOCS.fences! + DOCS.tables!
    const { frames } = stream(doc, 3, 6, plain)
    const last = frames[frames.length - 1]!
    expect(last.filter((b) => b.key !== 'tail').length).toBeGreaterThan(15)
  })

  it('sanitizes every frame, including a <script> split across chunks', () => {
    const doc = 'Hi\n\n<scr' + 'ipt>window.__pwned = 1</scr' + 'ipt>\n\nand <img src=x onerror="window.__pwned=2"> <a href="javascript:alert(1)">x</a>\n\n```html\n<script>alert(1)</script>\n```\n'
    const probe = new JSDOM('<!doctype html><body></body>', { runScripts: 'dangerously' })
    const win = probe.window
    // Each distinct piece of HTML is probed once: a finished block comes back unchanged in every
    // later frame, and probing it again each time made the test quadratic (6 s under load).
    const probed = new Set<string>()
    for (const seed of [1, 2, 3]) {
      const md = new IncrementalMarkdown()
      let acc = ''
      for (const c of chunks(doc, seed, 6)) {
        acc += c
        for (const b of md.update(acc, true)) {
          if (probed.has(b.html)) continue
          probed.add(b.html)
          // The block as the page gets it: parsed into a live element of a page that runs scripts.
          const body = win.document.body
          body.innerHTML = b.html
          expect(body.querySelector('script, img, [onerror], [onclick]')).toBeNull()
          for (const a of body.querySelectorAll('a')) expect(a.getAttribute('href') ?? '').not.toMatch(/javascript:/i)
          for (const el of body.querySelectorAll('*')) el.dispatchEvent(new win.Event('error'))
          expect((win as unknown as { __pwned?: unknown }).__pwned).toBeUndefined()
        }
      }
    }
    win.close()
  })

  it('renders each finished block once, and only the unfinished rest on each update', () => {
    const render = vi.fn(renderBlock)
    const sanitize = vi.spyOn(DOMPurify, 'sanitize')
    const md = new IncrementalMarkdown({ block: render })
    const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} says something about item ${i}.`)
    const doc = paragraphs.join('\n\n') + '\n'
    let acc = ''
    let updates = 0
    for (const c of chunks(doc, 11, 12)) {
      acc += c
      const before = render.mock.calls.length
      sanitize.mockClear()
      md.update(acc, true)
      updates++
      // One sanitize for the tail, plus one for each block that just finished.
      expect(sanitize.mock.calls.length).toBeLessThanOrEqual(1 + render.mock.calls.length - before)
      // What gets rendered on an update is small, never the whole text so far.
      for (const [html] of sanitize.mock.calls) expect(String(html).length).toBeLessThan(400)
    }
    expect(updates).toBeGreaterThan(100)
    // Each finished paragraph went through the block renderer exactly once.
    const rendered = render.mock.calls.map(([src]) => src)
    expect(new Set(rendered).size).toBe(rendered.length)
    expect(rendered.length).toBe(paragraphs.length - 1) // the last one is still open while streaming
    for (const [i, src] of rendered.entries()) expect(src).toBe(paragraphs[i] + '\n\n')
    // The final update reuses them: one block render for the rest, and no render of the whole
    // (plain paragraphs cannot interact, markdown.final.test.ts).
    sanitize.mockClear()
    const final = md.update(doc, false)
    expect(render.mock.calls.length).toBe(paragraphs.length)
    expect(sanitize.mock.calls.length).toBe(1)
    expect(join(final)).toBe(renderMarkdown(doc))
  })

  it('does not finish a list until the next line is known not to continue it', () => {
    const md = new IncrementalMarkdown()
    let blocks = md.update('- a\n\n-', true)
    expect(blocks.map((b) => b.key)).toEqual(['tail'])
    blocks = md.update('- a\n\n- b', true)
    expect(blocks.map((b) => b.key)).toEqual(['tail'])
    blocks = md.update('- a\n\n- b\n\nnext\n', true)
    expect(blocks.length).toBe(2)
    expect(blocks[0]!.html).toContain('<li><p>b</p>')
  })

  it('defers highlighting of an open fence and highlights it once closed', () => {
    const md = new IncrementalMarkdown()
    const open = md.update('```go\nfunc main() {}\n', true)
    expect(join(open)).toContain('language-go')
    expect(join(open)).not.toContain('hljs-keyword')
    const closed = md.update('```go\nfunc main() {}\n```\n', true)
    expect(join(closed)).toContain('hljs-keyword')
    expect(join(md.update('```go\nfunc main() {}\n```\n', false))).toBe(renderMarkdown('```go\nfunc main() {}\n```\n'))
    // An interrupted reply ending in an open fence renders like the one-shot render (highlighted).
    const cut = 'text\n\n```go\nfunc main() {}\n'
    const { final } = stream(cut, 5, 3)
    expect(join(final)).toBe(renderMarkdown(cut))
    expect(join(final)).toContain('hljs-keyword')
  })

  it('falls back to the one-shot render when blocks interact', () => {
    // A reference defined after the paragraph that uses it.
    const doc = 'See [the docs][d].\n\nMore text here.\n\n[d]: https://example.org/docs\n'
    const { final } = stream(doc, 9, 4)
    expect(join(final)).toBe(renderMarkdown(doc))
    expect(join(final)).toContain('href="https://example.org/docs"')
  })

  it('starts over when the text is replaced rather than extended', () => {
    const md = new IncrementalMarkdown()
    md.update('one\n\ntwo\n\nthr', true)
    const blocks = md.update('other\n\ntext\n', true)
    expect(join(blocks)).toBe(renderMarkdown('other\n\ntext\n'))
    expect(join(md.update('a\r\n\r\nb\r\n', false))).toBe(renderMarkdown('a\r\n\r\nb\r\n'))
  })

  it('a stored (not streamed) message is one plain render', () => {
    const md = new IncrementalMarkdown()
    const blocks = md.update(DOCS.mixed!, false)
    expect(blocks).toHaveLength(1)
    expect(blocks[0]!.html).toBe(renderMarkdown(DOCS.mixed!))
    expect(md.update('', false)).toEqual([])
  })

  it('isOpenFence', () => {
    expect(isOpenFence('```go\nx\n')).toBe(true)
    expect(isOpenFence('```go\nx\n```\n')).toBe(false)
    expect(isOpenFence('````\nx\n```\n')).toBe(true)
    expect(isOpenFence('~~~\nx\n```\n')).toBe(true)
    expect(isOpenFence('~~~\nx\n~~~~  \n\n')).toBe(false)
    expect(isOpenFence('```')).toBe(true)
    expect(isOpenFence('    indented\n')).toBe(false)
  })
})
