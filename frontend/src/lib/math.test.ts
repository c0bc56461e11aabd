// @vitest-environment jsdom
import { JSDOM } from 'jsdom'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { IncrementalMarkdown, renderMarkdown } from './markdown'
import { loadMath } from './math'

function mount(src: string): HTMLElement {
  const el = document.createElement('div')
  document.body.appendChild(el)
  el.innerHTML = renderMarkdown(src)
  return el
}

/** Runs the HTML in a jsdom that executes scripts and handlers; anything run sets __pwned. */
function executes(html: string): unknown {
  const dom = new JSDOM(`<!doctype html><body>${html}</body>`, { runScripts: 'dangerously' })
  const win = dom.window
  for (const el of win.document.body.querySelectorAll('*')) {
    for (const type of ['error', 'load', 'mouseover', 'click', 'focus']) el.dispatchEvent(new win.Event(type))
  }
  const result = (win as unknown as { __pwned?: unknown }).__pwned
  win.close()
  return result
}

const latexOf = (el: Element) => [...el.querySelectorAll('.math')].map((m) => m.getAttribute('data-latex'))

// KaTeX is loaded after the first paint in the app (main.ts); here, before the tests.
beforeAll(() => loadMath())

afterEach(() => {
  document.body.innerHTML = ''
})


describe('math in Markdown', () => {
  it('typesets the four delimiters, inline and displayed', () => {
    const el = mount('Inline $a^2+b^2=c^2$ and \\(x_1\\).\n\n$$\\int_0^1 x\\,dx$$\n\n\\[\\frac{1}{2}\\]\n')
    expect(latexOf(el)).toEqual(['$a^2+b^2=c^2$', '$x_1$', '$$\\int_0^1 x\\,dx$$', '$$\\frac{1}{2}$$'])
    expect(el.querySelectorAll('.math-inline .katex')).toHaveLength(2)
    expect(el.querySelectorAll('.math-display .katex-display')).toHaveLength(2)
    // copy-as-LaTeX: displayed formulas have a button, every formula its source
    expect(el.querySelectorAll('.math-display button[data-copy-latex]')).toHaveLength(2)
    // MathML with the TeX annotation rides along for screen readers and copy
    expect(el.querySelector('annotation')?.textContent).toBe('a^2+b^2=c^2')
  })

  it('keeps KaTeX layout styles (the page sanitizer forbids them elsewhere)', () => {
    const el = mount('$$\\frac{a}{b}$$')
    expect(el.querySelector('.katex [style]')).not.toBeNull()
    expect(mount('<span style="color:red">x</span>').querySelector('[style]')).toBeNull()
  })

  it('leaves prices alone', () => {
    for (const src of ['It costs $5 and $10.', 'From $5 to $10', 'between $5-$10 each', 'pay $20, then $30 more', 'a $ sign and another $ here']) {
      const el = mount(src)
      expect(el.querySelector('.math'), src).toBeNull()
      expect(el.textContent).toContain('$')
    }
  })

  it('does not typeset inside code', () => {
    const el = mount('`$x$` and\n\n```\n$$y$$\n```\n')
    expect(el.querySelector('.math')).toBeNull()
    expect(el.querySelector('code')?.textContent).toBe('$x$')
  })

  it('an unclosed $$ while streaming stays text, then typesets once closed', () => {
    const md = new IncrementalMarkdown()
    const partial = 'Here:\n\n$$\\sum_{i=1}^n i'
    const html = md.update(partial, true).map((b) => b.html).join('')
    expect(html).not.toContain('katex')
    expect(html).toContain('$$')
    const done = md.update(partial + ' = \\frac{n(n+1)}{2}$$\n\nDone.', false).map((b) => b.html).join('')
    expect(done).toContain('katex-display')
    expect(done).toContain('Done.')
  })

  it('every prefix of a reply with math renders without throwing', () => {
    const text = 'Let $x$ be real. Then\n\n$$x^2 \\ge 0$$\n\nand \\(y\\) too, costing $5.\n'
    const md = new IncrementalMarkdown()
    for (let i = 1; i <= text.length; i++) md.update(text.slice(0, i), true)
    expect(md.update(text, false).map((b) => b.html).join('')).toBe(renderMarkdown(text))
  })

  it('a formula KaTeX cannot parse shows its source, not an exception', () => {
    const el = mount('$\\frac{1}{$ and $$\\undefinedmacro{x}$$')
    expect(el.textContent).toContain('undefinedmacro')
  })
})

describe('math: hostile input', () => {
  const hostile = [
    '$\\href{javascript:window.__pwned=1}{click}$',
    '$$\\url{javascript:window.__pwned=2}$$',
    '$\\htmlClass{x}{y}\\htmlStyle{background:url(http://evil/)}{z}\\htmlId{a}{b}\\htmlData{foo=bar}{c}$',
    '$\\includegraphics{http://evil/x.png}$',
    '$\\color{red;background:url(http://evil/)}{x}$',
    '$\\textcolor{red" onmouseover="window.__pwned=3}{x}$',
    '$x</span><img src=x onerror="window.__pwned=4">$',
    '$$</div><script>window.__pwned=5</script>$$',
    '\\(\\text{<img src=x onerror=window.__pwned=6>}\\)',
    '$\\def\\a{\\a\\a}\\a$',
    '$\\def\\b{xxxxxxxx}\\def\\c{\\b\\b\\b\\b\\b\\b\\b\\b}\\def\\d{\\c\\c\\c\\c\\c\\c\\c\\c}\\def\\e{\\d\\d\\d\\d\\d\\d\\d\\d}\\e\\e\\e\\e\\e\\e\\e\\e$',
    '$\\rule{100000em}{100000em}$',
    '@@math-0-0@@ and $x$',
  ]
  for (const src of hostile) {
    it(`is inert: ${src.slice(0, 50)}`, () => {
      const html = renderMarkdown(src)
      expect(executes(html)).toBeUndefined()
      const el = mount(src)
      expect(el.querySelector('a, img, script, iframe, svg')).toBeNull()
      for (const s of el.querySelectorAll('[style]')) expect(s.getAttribute('style')).not.toMatch(/url\(/i)
      expect(el.querySelector('[onmouseover], [onerror], [id="a"]')).toBeNull()
    })
  }

  it('a guessed placeholder is text, not a formula', () => {
    const el = mount('@@math-0-0@@')
    expect(el.textContent?.trim()).toBe('@@math-0-0@@')
    expect(el.querySelector('.math')).toBeNull()
  })

  it('an oversized formula is shown as source', () => {
    const el = mount('$' + 'x+'.repeat(3000) + 'x$')
    expect(el.querySelector('.katex')).toBeNull()
    expect(el.querySelector('.math code')).not.toBeNull()
  })
})
