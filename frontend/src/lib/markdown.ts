// Model output is untrusted: Markdown is rendered by marked, code highlighted by highlight.js
// (highlight.ts, loaded by the first code block), and the HTML always goes through DOMPurify
// before it reaches the DOM.
import { t } from './i18n/index.svelte'
import DOMPurify from 'dompurify'
import { Marked, type Tokens, type TokensList } from 'marked'
import { mathExtensions, renderMath } from './math'
import { mathState } from './mathState.svelte'
import { codeState } from './codeState.svelte'
import { escapeHtml, highlight, knownLanguage } from './highlight'
import { blocksStandAlone } from './blocksStandAlone'

// While a reply streams, the fence at its end is usually still open and grows every frame:
// highlighting it each time would be quadratic, so it is shown escaped until it closes.
let deferOpenFence = false

/** Whether a fenced code token's raw text has no closing fence yet (indented code: false). */
export function isOpenFence(raw: string): boolean {
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw)
  if (!open) return false
  const body = raw.replace(/\n+$/, '')
  const nl = body.indexOf('\n')
  if (nl < 0) return true
  const last = body.slice(body.lastIndexOf('\n') + 1)
  const fence = open[1]!
  const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(last)
  return !(close && close[1]![0] === fence[0] && close[1]!.length >= fence.length)
}

// Math is typeset after the page's HTML is sanitized (math.ts): while marked renders, each
// formula leaves a placeholder with this render's nonce, which model text cannot guess.
let mathNonce = ''
let formulas: { tex: string; display: boolean }[] = []

const marked = new Marked({
  extensions: mathExtensions((tex, display) => {
    formulas.push({ tex, display })
    return `@@math-${mathNonce}-${formulas.length - 1}@@`
  }),
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang, raw }: Tokens.Code): string {
      const name = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase().replace(/[^\w+#-]/g, '') ?? ''
      const known = knownLanguage(name)
      const label = name ? `<span class="code-lang">${escapeHtml(name)}</span>` : '<span class="code-lang"></span>'
      return (
        `<div class="codeblock"><div class="codebar">${label}` +
        `<button type="button" class="code-copy" data-copy-code>${escapeHtml(t('message.copy'))}</button></div>` +
        `<pre><code class="hljs${known ? ` language-${known}` : ''}">${highlight(text.replace(/\n$/, ''), deferOpenFence && isOpenFence(raw) ? '' : known)}</code></pre></div>`
      )
    },
    // Images would load from wherever the model points: show them as links instead.
    image({ href, text }: Tokens.Image): string {
      const label = escapeHtml(text || href)
      return `<a href="${escapeHtml(href)}">${label}</a>`
    },
  },
})

// Everything that can fetch, embed or run something is forbidden; links are the only way out.
const PURIFY_CONFIG = {
  FORBID_TAGS: ['style', 'img', 'picture', 'source', 'video', 'audio', 'track', 'iframe', 'frame', 'object', 'embed', 'form', 'input', 'textarea', 'select', 'link', 'meta', 'base', 'svg', 'math', 'template'],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'background', 'poster'],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|#)/i,
}

let hooked = false
function ensureHooks() {
  if (hooked) return
  hooked = true
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href')
      if (!href) {
        node.removeAttribute('target')
        return
      }
      if (!href.startsWith('#')) {
        node.setAttribute('target', '_blank')
        node.setAttribute('rel', 'noopener noreferrer nofollow')
      }
    }
  })
}

/** Renders untrusted Markdown to HTML that is safe to assign to innerHTML. */
export function renderMarkdown(src: string): string {
  ensureHooks()
  const nonce = Math.random().toString(36).slice(2, 12)
  mathNonce = nonce
  formulas = []
  let html: string
  try {
    html = marked.parse(src ?? '', { async: false }) as string
  } finally {
    mathNonce = ''
  }
  const found = formulas
  formulas = []
  const clean = DOMPurify.sanitize(html, PURIFY_CONFIG) as unknown as string
  if (found.length === 0) return clean
  return clean.replace(new RegExp(`@@math-${nonce}-(\\d+)@@`, 'g'), (whole, i: string) => {
    const f = found[Number(i)]
    return f ? renderMath(f.tex, f.display) : whole
  })
}

// Finished blocks, by their Markdown source. The HTML of a block is a pure function of its
// source, so the same block met again (the final message, a reload) costs nothing.
const blockCache = new Map<string, string>()
const BLOCK_CACHE_SIZE = 2000

let cachedWith = ''

/** Whether KaTeX and highlight.js have loaded: rendered HTML depends on it. */
function loadedState(): string {
  return `${mathState.ready}/${codeState.ready}`
}

/** renderMarkdown with a bounded cache: for complete top-level blocks. */
export function renderBlock(src: string): string {
  // Blocks rendered before KaTeX or highlight.js loaded show formulas as source and code without
  // colours: drop them once either has.
  const loaded = loadedState()
  if (cachedWith !== loaded) {
    blockCache.clear()
    cachedWith = loaded
  }
  let html = blockCache.get(src)
  if (html !== undefined) {
    blockCache.delete(src) // most recently used goes last
  } else {
    html = renderMarkdown(src)
    if (blockCache.size >= BLOCK_CACHE_SIZE) blockCache.delete(blockCache.keys().next().value!)
  }
  blockCache.set(src, html)
  return html
}

export function clearBlockCache() {
  blockCache.clear()
}

/** Renders the in-progress end of a streamed reply (not cached: it changes every frame). */
function renderTail(src: string): string {
  deferOpenFence = true
  try {
    return renderMarkdown(src)
  } finally {
    deferOpenFence = false
  }
}

/** One piece of a rendered message: sanitized HTML, and a key that stays with it. */
export type Block = { key: string; html: string }

/**
 * How IncrementalMarkdown turns Markdown into HTML: a finished block, the in-progress tail, and a
 * whole text, and the lexer whose tokens `block` and `full` render (the final update compares
 * tokens to know whether the blocks stand for the whole, blocksStandAlone.ts). The app always
 * uses the sanitizing defaults. Tests of where text is cut into blocks may pass plain marked
 * renderers with that marked's lexer: under jsdom DOMPurify costs 1-5 ms a call (a new Document
 * and a walk through jsdom's DOM), which thousands of cut positions turn into tens of seconds.
 */
export type Renderers = {
  block: (src: string) => string
  tail: (src: string) => string
  full: (src: string) => string
  lex: (src: string) => TokensList
}

const sanitizing: Renderers = { block: renderBlock, tail: renderTail, full: renderMarkdown, lex: (src) => marked.lexer(src) }

const blankLineAtEnd = /\n[ \t]*\n[ \t\n]*$/

/**
 * Renders a reply while it streams, at a cost proportional to the new text: the Markdown is cut
 * into top-level blocks (marked's lexer), blocks that can no longer change are rendered once and
 * kept (with their key, so their DOM nodes stay), and only the rest is rendered again each
 * update. Every piece goes through DOMPurify.
 *
 * A block is finished when two more blocks follow it (the lines that ended it are complete,
 * appending text only changes the last block), or when a block follows it after a blank line:
 * a blank line ends paragraphs, headings, tables, block quotes and HTML blocks of the
 * blank-line kind, and a closed fence is final. An open fence or an unclosed `<script>`/`<pre>`
 * block runs to the end of the text, so nothing follows it. Lists and indented code can go on
 * after a blank line: the first line of the next block must be complete and not part of them.
 *
 * The final update (`streaming` false) returns blocks whose HTML joined equals
 * renderMarkdown(src), or else renderMarkdown(src) as a single block (Markdown where blocks
 * interact: a link reference defined further down, raw HTML left open across blocks). Whether
 * they can interact is read from one lex of the whole text (blocksStandAlone.ts); only when they
 * can is the whole rendered again and compared, so the end of a plain long reply costs about
 * what a streaming update costs.
 */
export class IncrementalMarkdown {
  /** Finished blocks cover src[0, stableEnd) of the text they were cut from. */
  private stable = ''
  private finished: Block[] = []
  /** The Markdown source of each finished block. */
  private sources: string[] = []
  private next = 0
  /** What had loaded (loadedState) when the finished blocks were rendered. */
  private renderedWith = ''

  private readonly render: Renderers

  constructor(render: Partial<Renderers> = {}) {
    this.render = { ...sanitizing, ...render }
  }

  update(text: string, streaming: boolean): Block[] {
    const src = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text
    // Blocks rendered before KaTeX or highlight.js loaded show formulas as their source and code
    // without colours: render them again now, as the one-shot render would.
    const loaded = loadedState()
    if (!src.startsWith(this.stable) || loaded !== this.renderedWith) this.reset()
    this.renderedWith = loaded
    if (!streaming && this.finished.length === 0) {
      // Nothing streamed here (a stored message): one plain render.
      return src ? [{ key: `all${this.next++}`, html: this.render.full(src) }] : []
    }
    this.advance(src, streaming)
    const rest = src.slice(this.stable.length)
    if (streaming) {
      return rest ? [...this.finished, { key: 'tail', html: this.render.tail(rest) }] : [...this.finished]
    }
    // Final: the rest is finished too, and the whole must match a one-shot render: known from
    // the tokens when the blocks cannot interact, else by rendering the whole and comparing.
    const blocks = [...this.finished]
    if (this.stable === src && blocksStandAlone(this.render.lex(src), this.sources, this.render.lex)) return blocks
    const full = this.render.full(src)
    if (blocks.map((b) => b.html).join('') === full) return blocks
    this.reset()
    return [{ key: `all${this.next++}`, html: full }]
  }

  private reset() {
    this.stable = ''
    this.finished = []
    this.sources = []
  }

  /** Moves finished blocks out of the part of src after `stable` (all of it when final). */
  private advance(src: string, streaming: boolean) {
    const start = this.stable.length
    const tail = src.slice(start)
    if (!tail) return
    const tokens = marked.lexer(tail)
    // Top-level tokens: a block is a non-space token with the space tokens that follow it
    // (leading space goes with the first).
    const groups: { type: string; from: number; to: number; firstLineDone: boolean }[] = []
    let pos = 0
    for (const t of tokens) {
      const from = pos
      pos += t.raw.length
      if (t.type === 'space' && groups.length > 0) groups[groups.length - 1]!.to = pos
      else if (t.type === 'space') groups.push({ type: 'space', from, to: pos, firstLineDone: true })
      else if (groups.length === 1 && groups[0]!.type === 'space') Object.assign(groups[0]!, { type: t.type, to: pos, firstLineDone: tail.indexOf('\n', from) >= 0 })
      else groups.push({ type: t.type, from, to: pos, firstLineDone: tail.indexOf('\n', from) >= 0 })
    }
    // The tokens' raw text must cover the source exactly, or block offsets would be wrong.
    if (pos !== tail.length) return
    let done = 0
    if (!streaming) done = groups.length
    else {
      while (done + 1 < groups.length) {
        const g = groups[done]!
        const following = groups[done + 1]!
        // Two blocks follow: the lines that ended this one are complete and cannot change.
        const settled = done + 2 < groups.length
        const blank = blankLineAtEnd.test(tail.slice(g.from, g.to))
        if (!settled && !(blank && (following.firstLineDone || (g.type !== 'list' && g.type !== 'code')))) break
        done++
      }
    }
    let end = 0
    for (let i = 0; i < done; i++) {
      const g = groups[i]!
      const blockSrc = tail.slice(g.from, g.to)
      this.finished.push({ key: `b${this.next++}`, html: this.render.block(blockSrc) })
      this.sources.push(blockSrc)
      end = g.to
    }
    if (end > 0) this.stable = src.slice(0, start + end)
  }
}
