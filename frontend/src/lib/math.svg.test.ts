// @vitest-environment jsdom
import katex from 'katex'
import { JSDOM } from 'jsdom'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { renderMarkdown } from './markdown'
import { loadMath, sanitizeKatex } from './math'

// KaTeX draws radicals, stretchy arrows, wide accents, braces, tall delimiters and \cancel as
// inline SVG (svg, path, line). Without it a displayed \sqrt has no radical sign.

beforeAll(() => loadMath())

afterEach(() => {
  document.body.innerHTML = ''
})

function mount(src: string): HTMLElement {
  const el = document.createElement('div')
  document.body.appendChild(el)
  el.innerHTML = renderMarkdown(src)
  return el
}

/** KaTeX's own SVG for a formula, parsed by the same DOM, as the sanitized page must keep it. */
function katexSvgs(tex: string): string[] {
  const el = document.createElement('div')
  el.innerHTML = katex.renderToString(tex, { displayMode: true, throwOnError: false, strict: 'ignore' })
  return [...el.querySelectorAll('svg')].map((s) => s.outerHTML)
}

/** Runs the HTML in a jsdom that executes scripts and handlers; anything run sets __pwned. */
function executes(html: string): unknown {
  const dom = new JSDOM(`<!doctype html><body>${html}</body>`, { runScripts: 'dangerously' })
  const win = dom.window
  for (const el of win.document.body.querySelectorAll('*')) {
    for (const type of ['error', 'load', 'mouseover', 'click', 'focus', 'SVGLoad']) el.dispatchEvent(new win.Event(type))
  }
  const result = (win as unknown as { __pwned?: unknown }).__pwned
  win.close()
  return result
}

describe('math: the SVG KaTeX draws', () => {
  const drawn = [
    '\\sqrt{x^2+1}',
    '\\sqrt[3]{\\frac{\\frac{a}{b}}{\\frac{c}{\\frac{d}{e}}}}',
    '\\overrightarrow{AB}',
    '\\widehat{abc}',
    '\\xrightarrow[below]{above}',
    '\\overbrace{a+b}^{n}',
    '\\underbrace{a+b}_{n}',
    '\\left\\{\\begin{matrix}a\\\\b\\\\c\\\\d\\\\e\\end{matrix}\\right.',
    '\\cancel{x}+\\xcancel{y}',
    '\\phase{x}',
  ]
  for (const tex of drawn) {
    it(`keeps it: ${tex}`, () => {
      const want = katexSvgs(tex)
      expect(want.length, 'KaTeX draws this one with SVG').toBeGreaterThan(0)
      const el = mount(`$$${tex}$$`)
      expect([...el.querySelectorAll('.math-display svg')].map((s) => s.outerHTML)).toEqual(want)
    })
  }

  it('a displayed \\sqrt keeps its radical sign', () => {
    const path = mount('$$\\sqrt{x^2+1}$$').querySelector('.katex .hide-tail svg path')
    expect(path?.getAttribute('d')).toMatch(/^M\d/)
  })
})

describe('math: SVG smuggled into KaTeX output', () => {
  // KaTeX with trust off writes none of these; the sanitizer must hold even if a KaTeX bug did.
  const sqrt = katex.renderToString('\\sqrt{x}', { displayMode: true })
  const into = (what: string) => sqrt.replace('<path ', `${what}<path `)
  const attacks: Record<string, string> = {
    'svg script': into('<script>window.__pwned=1</script>'),
    'svg onload': sqrt.replace('<svg ', '<svg onload="window.__pwned=2" '),
    'path onclick': sqrt.replace('<path ', '<path onclick="window.__pwned=3" onmouseover="window.__pwned=3" '),
    foreignObject: into('<foreignObject><img src=x onerror="window.__pwned=4"><iframe src="javascript:parent.__pwned=4"></iframe></foreignObject>'),
    'a xlink:href': into('<a xlink:href="javascript:window.__pwned=5"><text>x</text></a>'),
    'a href': into('<a href="javascript:window.__pwned=6"><text>x</text></a>'),
    'use href': into('<use href="data:image/svg+xml,<svg id=x onload=alert(1)>#x"></use><use xlink:href="http://evil/x.svg#a"></use>'),
    image: into('<image href="http://evil/x.png"></image><image xlink:href="http://evil/y.png"></image>'),
    animate: into('<set attributeName="onmouseover" to="window.__pwned=7"></set><animate attributeName="href" values="javascript:window.__pwned=8"></animate>'),
    'svg style url': sqrt.replace('<svg ', '<svg style="background:url(http://evil/x)" ').replace('<path ', '<path style="fill:url(http://evil/#f)" '),
    'svg style element': into('<style>@import url(http://evil/x.css);</style>'),
    'svg filter': into('<filter id="f"><feImage href="http://evil/x.png"></feImage></filter><g filter="url(#f)"></g>'),
    'path fill url': sqrt.replace('<path ', '<path fill="url(http://evil/#p)" mask="url(http://evil/#m)" '),
  }
  for (const [name, html] of Object.entries(attacks)) {
    it(`is stripped: ${name}`, () => {
      const clean = sanitizeKatex(html)
      expect(executes(clean)).toBeUndefined()
      const el = document.createElement('div')
      el.innerHTML = clean
      expect(el.querySelector('script, foreignObject, foreignobject, a, use, image, set, animate, style, filter, feImage, g, text, iframe, img')).toBeNull()
      for (const node of el.querySelectorAll('*')) {
        for (const attr of node.attributes) {
          expect(attr.name, `${node.tagName}[${attr.name}]`).not.toMatch(/^on|href$|^fill$|^mask$|^filter$/i)
          expect(attr.value, `${node.tagName}[${attr.name}]`).not.toMatch(/url\(|javascript:/i)
        }
      }
      expect(clean).not.toContain('evil')
      // What KaTeX drew survives the attack around it.
      expect(el.querySelector('svg path')?.getAttribute('d')).toMatch(/^M\d/)
    })
  }
})
