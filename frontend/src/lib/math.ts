// Math in model output: `$…$` and `\(…\)` inline, `$$…$$` and `\[…\]` displayed, typeset by
// KaTeX. KaTeX's HTML needs inline styles (the page's sanitizer forbids them), so math is
// rendered apart: the Markdown keeps a placeholder carrying a per-render nonce, the page's
// HTML is sanitized, then each placeholder becomes KaTeX's output, itself sanitized with a
// profile that allows KaTeX's styles, MathML and drawn SVG but nothing that loads or runs.
//
// KaTeX (about 270 kB, the largest part of the page's code) is its own chunk, loaded by the first
// formula rendered (loadMath), not with the page. That formula shows its source until KaTeX
// arrives; mathState.ready then re-renders the messages (markdown.ts, Message.svelte).
import DOMPurify from 'dompurify'
import type Katex from 'katex'
import type { KatexOptions } from 'katex'
import type { TokenizerAndRendererExtension } from 'marked'
import { mathState } from './mathState.svelte'

let katex: typeof Katex | undefined
let loading: Promise<void> | undefined

/** Loads KaTeX once; the promise settles when formulas typeset (mathState.ready is then true). */
export function loadMath(): Promise<void> {
  // Its stylesheet (fonts and layout, 23 kB) comes with it: nothing before a formula needs it.
  loading ??= Promise.all([import('katex'), import('katex/dist/katex.min.css')]).then(
    ([m]) => {
      katex = m.default
      mathState.ready = true
    },
    (err: unknown) => {
      loading = undefined // a later formula tries again
      throw err
    },
  )
  return loading
}

/** What a math token carries. */
export type MathToken = { type: 'math'; raw: string; tex: string; display: boolean }

// KaTeX with everything that could reach out switched off: no \href, \url, \includegraphics,
// \htmlClass/\htmlStyle (trust false), bounded macro expansion (a \def bomb stops), bounded
// sizes, and errors shown as the source in red instead of thrown.
const KATEX_OPTIONS: KatexOptions = {
  throwOnError: false,
  trust: false,
  strict: 'ignore',
  maxExpand: 500,
  maxSize: 20,
  output: 'htmlAndMathml',
}

// Longer math than this is shown as its source: a pasted document is not an equation.
const MAX_TEX = 4000

// The second pass allows what KaTeX writes (spans, MathML, inline styles, and the SVG it draws
// radicals, stretchy arrows, wide accents, braces and \cancel with) and nothing else.
const KATEX_PURIFY = {
  USE_PROFILES: { html: true, mathMl: true },
  FORBID_TAGS: ['a', 'img', 'style', 'script', 'iframe', 'object', 'embed', 'form', 'input', 'link', 'meta', 'base', 'maction', 'annotation-xml'],
  FORBID_ATTR: ['href', 'xlink:href', 'src', 'srcset', 'action', 'formaction', 'background'],
  ADD_TAGS: ['semantics', 'annotation', 'svg', 'path', 'line'],
  ADD_ATTR: ['style', 'encoding', 'aria-hidden', 'xmlns', 'viewbox', 'preserveaspectratio', 'd', 'x1', 'y1', 'x2', 'y2', 'stroke-width'],
}

// Exactly the attributes KaTeX gives each SVG element (domTree.ts SvgNode, PathNode, LineNode).
// Anything else on them (handlers, href, fill/mask/filter url()s) goes, and any other SVG
// element is not allowed at all.
const svgAttrs: Record<string, ReadonlySet<string>> = {
  svg: new Set(['xmlns', 'width', 'height', 'viewbox', 'preserveaspectratio', 'style']),
  path: new Set(['d']),
  line: new Set(['x1', 'y1', 'x2', 'y2', 'stroke-width']),
}
const svgNS = 'http://www.w3.org/2000/svg'

// A style that could load something (url(), @import, image-set) or escape its value is dropped.
const unsafeStyle = /url\s*\(|@import|image-set|expression\s*\(|\\|<|javascript:/i

let hooked = false
function ensureHook() {
  if (hooked) return
  hooked = true
  // The page's sanitizer forbids svg, so the SVG rule only ever acts on KaTeX's output.
  DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
    if (data.attrName === 'style' && unsafeStyle.test(data.attrValue)) data.keepAttr = false
    if (node.namespaceURI === svgNS && !svgAttrs[node.localName]?.has(data.attrName)) data.keepAttr = false
    // xmlns may only say what the parser already decided; another namespace is no SVG of KaTeX's.
    if (data.attrName === 'xmlns' && data.attrValue !== svgNS) data.keepAttr = false
  })
}

function escapeAttr(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)
}

/** KaTeX's HTML with everything but what KaTeX writes removed (exported for its attack tests). */
export function sanitizeKatex(html: string): string {
  ensureHook()
  return DOMPurify.sanitize(html, KATEX_PURIFY) as unknown as string
}

/** Typesets one formula to sanitized HTML, with its source kept for copy-as-LaTeX. */
export function renderMath(tex: string, display: boolean): string {
  ensureHook()
  const src = tex.trim()
  let body: string
  if (src.length > MAX_TEX) {
    body = `<code>${escapeAttr(src)}</code>`
  } else if (!mathState.ready || !katex) {
    // Not loaded yet: the source for now. Reading mathState makes the caller's $derived or
    // template depend on it, so it renders again (typeset) when KaTeX arrives.
    void loadMath().catch(() => {})
    body = `<code>${escapeAttr(src)}</code>`
  } else {
    try {
      body = katex.renderToString(src, { ...KATEX_OPTIONS, displayMode: display })
    } catch {
      body = `<code>${escapeAttr(src)}</code>`
    }
    body = sanitizeKatex(body)
  }
  const latex = escapeAttr(display ? `$$${src}$$` : `$${src}$`)
  if (!display) return `<span class="math math-inline" data-latex="${latex}">${body}</span>`
  // A span (shown as a block): displayed math may sit inside a paragraph.
  return (
    `<span class="math math-display" data-latex="${latex}">` +
    `<button type="button" class="math-copy" data-copy-latex title="Copy as LaTeX" aria-label="Copy the formula as LaTeX">TeX</button>${body}</span>`
  )
}

// Inline `$…$` follows Pandoc's rule, so prices stay prices: the opening `$` is followed by a
// non-space, the closing one is preceded by a non-space and not followed by a digit
// ("$5 and $10" has no math), and the formula holds no `$` and no line break.
const inlineDollar = /^\$(?!\$)(?=\S)((?:\\.|[^\\$\n])+?)(?<=\S)\$(?!\d)/
const inlineDisplay = /^\$\$(?!\$)((?:\\.|[^\\$])+?)\$\$/
const inlineParen = /^\\\(((?:\\(?!\))|[^\\])+?)\\\)/
const inlineBracket = /^\\\[((?:\\(?!\])|[^\\])+?)\\\]/
// Displayed math as a block: `$$` or `\[` starting a line, its end closing a line, no blank
// line inside (a blank line ends a Markdown block; while a reply streams, an unclosed `$$` is
// left as text until its end arrives).
const blockDollar = /^ {0,3}\$\$((?:(?!\n[ \t]*\n)[\s\S])+?)\$\$[ \t]*(?:\n|$)/
const blockBracket = /^ {0,3}\\\[((?:(?!\n[ \t]*\n)[\s\S])+?)\\\][ \t]*(?:\n|$)/

/**
 * Marked extensions for math. `render` turns a formula into what the page's HTML carries
 * (the Markdown module passes a placeholder and substitutes after sanitizing).
 */
export function mathExtensions(render: (tex: string, display: boolean) => string): TokenizerAndRendererExtension[] {
  return [
    {
      name: 'mathBlock',
      level: 'block',
      start(src: string) {
        const m = /^ {0,3}(?:\$\$|\\\[)/m.exec(src)
        return m ? m.index : undefined
      },
      tokenizer(src: string) {
        const m = blockDollar.exec(src) ?? blockBracket.exec(src)
        if (!m || !m[1]!.trim()) return undefined
        return { type: 'mathBlock', raw: m[0], tex: m[1]!, display: true }
      },
      renderer(token) {
        return render(token.tex as string, true) + '\n'
      },
    },
    {
      name: 'math',
      level: 'inline',
      start(src: string) {
        const i = src.search(/\$|\\[([]/)
        return i < 0 ? undefined : i
      },
      tokenizer(src: string) {
        let m = inlineDisplay.exec(src)
        if (m) return { type: 'math', raw: m[0], tex: m[1]!, display: true }
        m = inlineBracket.exec(src)
        if (m) return { type: 'math', raw: m[0], tex: m[1]!, display: true }
        m = inlineParen.exec(src)
        if (m) return { type: 'math', raw: m[0], tex: m[1]!, display: false }
        m = inlineDollar.exec(src)
        if (m) return { type: 'math', raw: m[0], tex: m[1]!, display: false }
        return undefined
      },
      renderer(token) {
        return render(token.tex as string, token.display as boolean)
      },
    },
  ]
}
