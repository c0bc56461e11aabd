// @vitest-environment jsdom
import { Marked } from 'marked'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { reply } from '../../bench/reply'
import { blocksStandAlone } from './blocksStandAlone'
import { loadHighlight } from './highlight'
import { IncrementalMarkdown, clearBlockCache, renderMarkdown, type Block, type Renderers } from './markdown'
import { STREAM_DOCS, STREAM_PIECES, chunks, rng } from './markdown.fixtures'
import { loadMath } from './math'

// The final update of a streamed reply returns its streamed blocks without rendering the whole
// when the Markdown says they cannot interact (blocksStandAlone.ts). These tests stream texts of
// both kinds cut at many places and check, every time, that the final blocks joined are the
// one-shot render, and which way the final update went: `full` (the whole rendered again) is a
// spy, called on the final update only when the blocks could interact.

const join = (blocks: Block[]) => blocks.map((b) => b.html).join('')

// Marked without DOMPurify (and its own lexer), for the many cut positions: a sanitize costs
// 1-5 ms under jsdom. The app's sanitizing renderers stream every text too, at fewer positions.
const plainMarked = new Marked({ gfm: true, breaks: false })
const plainRender = (src: string) => plainMarked.parse(src, { async: false }) as string
const plain: Renderers = { block: plainRender, tail: plainRender, full: plainRender, lex: (src) => plainMarked.lexer(src) }

// Blocks that cannot interact.
const SEPARATE: Record<string, string> = {
  prose: STREAM_DOCS.prose!,
  fences: STREAM_DOCS.fences!,
  lists: STREAM_DOCS.lists!,
  tables: STREAM_DOCS.tables!,
  unclosed: STREAM_DOCS.unclosed!,
  mixed: STREAM_DOCS.mixed!,
  math: 'Let $x$ be real and \\(y > 0\\); it costs $5 and $10.\n\n$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n\nand \\[a < b\\] inline, then\n\n\\[\n\\int_0^1 x\\,dx\n\\]\n\n- a formula $e^{i\\pi}$ in a list\n\n| f | g |\n|---|---|\n| $x^2$ | $y$ |\n',
  codeWithLt:
    'Compare:\n\n```html\n<div class="a">x < y && y > z</div>\n<script>alert(1)</script>\n```\n\nInline `a < b` and `<b>` in code, 1 < 2 in prose, a &amp; b.\n\n    if a < b { return <tag> }\n\n```go\nif x < 3 {\n}\n```\n',
  listsAfterBlank: '- one\n\n- two\n\n  more of two\n\n      code in an item\n\n1. first\n\n2. second\n\n   still second\n\nafter the list\n\n3) three\n4) four\n',
  quotes: '> a quote\n> with **bold**\n\n> > nested\n> back\n\n> - a list in a quote\n> - more\n>\n> ```\n> code in a quote\n> ```\n\nout\n',
  links: 'An [inline link](https://example.org/a "title") and <https://example.org/auto>, www.example.org and [![an image](https://example.org/i.png)](https://example.org/b).\n\n## A heading with a [link](https://example.org/c)\n\nDone.\n',
  // Not HTML for marked (an inline comment must close in its paragraph): escaped text.
  openComment: 'a <!-- open comment\n\nhidden?\n\nend -->\n\nlast\n',
  crlf: 'First\r\n\r\n```go\r\nx := a < b\r\n```\r\n\r\n- b\r\n- c\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n',
  benchReply: reply(),
}

// Blocks that interact, or might: a link reference definition before or after its use, raw HTML
// anywhere (block, or inline in a paragraph, list, table, quote or link).
const INTERACTING: Record<string, string> = {
  script: STREAM_DOCS.script!,
  refAfter: 'See [the docs][d] and [d].\n\nMore text here.\n\n[d]: https://example.org/docs\n',
  refBefore: '[d]: https://example.org/docs "Docs"\n\nSee [the docs][d].\n\nMore text here.\n',
  htmlBlock: 'Before\n\n<div class="box">\n\nafter the div, inside it for the browser\n\n</div>\n\nend\n',
  inlineOpen: 'A <b>bold start\n\nstill bold for the browser</b>\n\nend\n',
  inlineClosed: 'Text with <b>bold</b> and <kbd>Ctrl</kbd>.\n\nNext paragraph.\n',
  inList: '- item <i>open\n- second\n\npara\n',
  inTable: '| a | b |\n|---|---|\n| <span> | x |\n\nafter\n',
  inQuote: '> quote <em>x\n\nafter\n',
  inLink: 'A [link <u>under](https://example.org)\n\nafter\n',
  comment: '<!-- a comment\n\nover blank lines -->\n\nlast\n',
}

/** Streams text in chunks (one update per chunk), then the final update, with `full` spied on. */
function stream(text: string, parts: string[], render: Partial<Renderers>) {
  const full = vi.fn(render.full ?? renderMarkdown)
  const md = new IncrementalMarkdown({ ...render, full })
  let acc = ''
  let last: Block[] = []
  for (const p of parts) {
    acc += p
    last = md.update(acc, true)
  }
  full.mockClear()
  const final = md.update(text, false)
  // With no finished block yet the final update is a stored message's (one plain render).
  return { final, fullRenders: full.mock.calls.length, streamedBlocks: last.filter((b) => b.key !== 'tail').length }
}

const SIZES = [1, 3, 8, 20, 60]

/**
 * Ways to deliver a text: `chunked` random chunkings (chunks of up to 1 to 60 characters, from
 * SIZES[first]; a long text in at least about 1,000, as in the bench), and `prefixes` prefixes
 * after which the rest arrives with the end.
 */
function deliveries(text: string, chunked: number, prefixes: number, first = 0): string[][] {
  const out: string[][] = []
  const least = Math.ceil(text.length / 1000)
  for (let i = 0; i < chunked; i++) out.push(chunks(text, 1000 + i, Math.max(least, SIZES[(first + i) % SIZES.length]!)))
  const next = rng(text.length)
  for (let i = 0; i < prefixes; i++) {
    const cut = 1 + Math.floor(next() * (text.length - 1))
    out.push(chunks(text.slice(0, cut), 2000 + i, Math.max(least, 6)))
  }
  return out
}

beforeAll(() => Promise.all([loadMath(), loadHighlight()]))
beforeEach(() => clearBlockCache())

describe('IncrementalMarkdown final update', () => {
  for (const [name, text] of Object.entries(SEPARATE)) {
    it(`"${name}": the streamed blocks are final without rendering the whole`, () => {
      const long = text.length > 2000
      // Each char streamed alone, the others in random chunks; the app's renderers in larger ones
      // (a sanitize costs 1-5 ms under jsdom).
      for (const [render, ways] of [
        [plain, long ? deliveries(text, 1, 1, 4) : deliveries(text, 12, 12)],
        [{}, long ? deliveries(text, 1, 0, 4) : deliveries(text, 2, 2, 2)],
      ] as const) {
        const oneShot = (render.full ?? renderMarkdown)(text)
        let fast = 0
        for (const parts of ways) {
          const { final, fullRenders, streamedBlocks } = stream(text, parts, render)
          expect(join(final), `${name} ${JSON.stringify(parts.slice(0, 3))}…`).toBe(oneShot)
          if (streamedBlocks > 0) {
            expect(fullRenders, `${name}: the whole was rendered again`).toBe(0)
            fast++
          }
        }
        expect(fast).toBeGreaterThan(0)
      }
    }, 30_000)
  }

  for (const [name, text] of Object.entries(INTERACTING)) {
    it(`"${name}": the whole is rendered and compared`, () => {
      for (const [render, ways] of [
        [plain, deliveries(text, 12, 12)],
        [{}, deliveries(text, 2, 2, 2)],
      ] as const) {
        const oneShot = (render.full ?? renderMarkdown)(text)
        for (const parts of ways) {
          const { final, fullRenders } = stream(text, parts, render)
          expect(join(final), `${name} ${JSON.stringify(parts.slice(0, 3))}…`).toBe(oneShot)
          expect(fullRenders).toBe(1)
        }
      }
    })
  }

  it('random documents of the streaming pieces: equal to the one-shot render either way', () => {
    const next = rng(77)
    let fast = 0
    for (let n = 0; n < 60; n++) {
      const parts: string[] = []
      const count = 2 + Math.floor(next() * 6)
      for (let i = 0; i < count; i++) parts.push(STREAM_PIECES[Math.floor(next() * STREAM_PIECES.length)]!)
      const doc = parts.reduce((acc, p) => acc + ['\n', '', '\n\n'][Math.floor(next() * 3)]! + p)
      const renders: Partial<Renderers>[] = n % 10 === 0 ? [plain, {}] : [plain]
      for (const render of renders) {
        const { final, fullRenders, streamedBlocks } = stream(doc, chunks(doc, n, 1 + Math.floor(next() * 10)), render)
        expect(join(final), doc).toBe((render.full ?? renderMarkdown)(doc))
        if (streamedBlocks > 0 && fullRenders === 0) fast++
        // Raw HTML (one piece has <b>) always takes the full check.
        if (streamedBlocks > 0 && doc.includes('<b>')) expect(fullRenders, doc).toBe(1)
      }
    }
    expect(fast).toBeGreaterThan(10)
  })

  it('a streamed reply whose blocks would differ from the whole falls back to the one-shot render', () => {
    // Joined, the blocks rendered alone would miss the reference and let the <div> close early:
    // the final update must not return them.
    for (const text of [INTERACTING.refAfter!, INTERACTING.refBefore!, INTERACTING.htmlBlock!, INTERACTING.inlineOpen!]) {
      const { final } = stream(text, chunks(text, 3, 4), {})
      expect(final).toHaveLength(1)
      expect(final[0]!.html).toBe(renderMarkdown(text))
    }
  })
})

describe('blocksStandAlone', () => {
  const lex = (src: string) => plainMarked.lexer(src)
  const standAlone = (blocks: string[]) => blocksStandAlone(lex(blocks.join('')), blocks, lex)

  it('accepts blocks cut where the whole text has its top-level tokens', () => {
    expect(standAlone(['# Title\n\n', 'A paragraph.\n\n', '- a\n- b\n'])).toBe(true)
    expect(standAlone(['```go\nx < y\n```\n\n', '| a |\n|---|\n| 1 |\n'])).toBe(true)
  })

  it('refuses blocks whose tokens differ from the whole text at that place', () => {
    expect(standAlone(['one line\n', 'and the next\n'])).toBe(false) // one paragraph
    expect(standAlone(['Title\n', '---\n'])).toBe(false) // a setext heading
    expect(standAlone(['```\ncode\n', '```\n'])).toBe(false) // one fence
    expect(standAlone(['- a\n\n', '- b\n'])).toBe(false) // one loose list
    expect(standAlone(['*em\n\n', 'ph*\n'])).toBe(true) // a blank line ends emphasis too
    expect(standAlone(['a `code\n', 'span`\n'])).toBe(false)
    // As many tokens as the whole has, but other ones: a paragraph and a two-line setext heading
    // alone, two headings together.
    expect(standAlone(['a\n', '===\nb\n---\n'])).toBe(false)
  })

  it('refuses reference definitions and raw HTML at any depth', () => {
    expect(standAlone(['[x]: https://example.org\n\n', 'See [x].\n'])).toBe(false)
    expect(standAlone(['See [x].\n\n', '[x]: https://example.org\n'])).toBe(false)
    for (const html of ['<div>\n\n', 'a <b>\n\n', '- <i>x\n\n', '| <s> |\n|---|\n\n', '> <em>q\n\n', '**<u>x**\n\n', '[<u>l](https://x.org)\n\n']) {
      expect(standAlone([html, 'after\n']), html).toBe(false)
    }
  })

  it('refuses blocks that do not cover the whole text', () => {
    expect(blocksStandAlone(lex('a\n\nb\n'), ['a\n\n'], lex)).toBe(false)
  })
})
