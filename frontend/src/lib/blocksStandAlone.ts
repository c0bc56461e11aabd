// When the final update of a streamed reply (IncrementalMarkdown in markdown.ts) may return the
// blocks it rendered one by one without rendering the whole reply again to compare: a one-shot
// render of 16k characters (marked, highlight.js, KaTeX and DOMPurify over all of it) was one
// 220-300 ms task at the end of every long reply. Lexing is a small part of that, so the
// question is answered from marked's tokens, not from HTML.
//
// renderMarkdown(src) is sanitize(parse(lex(src))) with formulas typeset after sanitizing. The
// joined blocks are the same string when all of these hold, and each is checked here or was
// checked by reading the code:
//   1. The tokens agree: each block's source, lexed alone, gives exactly the tokens (deep equal,
//      inline tokens included) that the whole text gives at that place. So no block's lexing
//      depended on the text around it (a paragraph continued by the next block's lines, a list
//      or fence cut short, a setext underline, emphasis or a code span across the cut).
//   2. No link reference definitions (`tokens.links` of the whole): a `[x][ref]` resolves against
//      definitions anywhere in the text, also further down (checked).
//   3. No raw HTML token anywhere, block `html` or inline `html` inside paragraphs, headings,
//      list items, table cells, quotes, links, emphasis (checked): an element left open in one
//      block would take in the following blocks when the browser parses the whole.
//   4. marked's Parser renders top-level tokens one after another with no state between them
//      (marked 18: no heading ids or slugger, no footnotes, no list counters across lists; a
//      list's start number is its own token's). Read in marked.esm.js, Parser.parse.
//   5. The app's renderers are pure functions of their token: code highlighting calls
//      hljs.highlight on one block's text (no continuation); images become links; the math
//      extension leaves a placeholder with a per-render nonce which is replaced after
//      sanitizing by renderMath(tex), itself a function of the formula and whether KaTeX has
//      loaded (KaTeX gets no shared `macros` object, so a \gdef cannot reach another formula).
//      Whether KaTeX and highlight.js have loaded is the caller's to check: blocks rendered
//      before they loaded are not reused (IncrementalMarkdown starts over).
//   6. DOMPurify of joined HTML is the join of DOMPurify of each part when every part is
//      balanced markup the parser leaves in the body, which marked writes for every token but
//      raw HTML (3). Its context-dependent rules (clobbering checks of `id` and `name`, comments)
//      only act on attributes and nodes raw HTML brings.
// Anything else (1 to 3 failing) falls back to the one-shot render and its comparison.
import type { Token, TokensList } from 'marked'

/**
 * Whether rendering each of `blocks` alone and joining the results gives the same HTML as
 * rendering their concatenation, which `lex` has lexed as `whole`.
 */
export function blocksStandAlone(whole: TokensList, blocks: string[], lex: (src: string) => TokensList): boolean {
  if (Object.keys(whole.links).length > 0) return false
  if (hasRawHtml(whole)) return false
  let at = 0
  for (const src of blocks) {
    for (const t of lex(src)) {
      if (at >= whole.length || !sameToken(t, whole[at]!)) return false
      at++
    }
  }
  return at === whole.length
}

/** Whether any token, at any depth, is raw HTML. */
function hasRawHtml(tokens: readonly Token[]): boolean {
  for (const t of tokens) {
    if (t.type === 'html') return true
    if (t.type === 'table') {
      for (const cell of t.header) if (hasRawHtml(cell.tokens)) return true
      for (const row of t.rows) for (const cell of row) if (hasRawHtml(cell.tokens)) return true
    }
    if (t.type === 'list' && hasRawHtml(t.items)) return true
    if ('tokens' in t && t.tokens && hasRawHtml(t.tokens)) return true
  }
  return false
}

/** Deep equality of plain token data (objects, arrays, strings, numbers, booleans). */
function sameToken(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameToken(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !sameToken((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false
  }
  return true
}
