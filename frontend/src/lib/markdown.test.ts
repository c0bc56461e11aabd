// @vitest-environment jsdom
import { JSDOM } from 'jsdom'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadHighlight } from './highlight'
import { renderMarkdown } from './markdown'

/**
 * Parses the rendered HTML in a separate jsdom that runs scripts and inline handlers, then fires
 * the events an attacker would count on. Anything executable would set window.__pwned.
 */
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

declare global {
  var __pwned: unknown
}

// Renders like the app does: the sanitized HTML goes into a live element via innerHTML.
function mount(src: string): HTMLElement {
  const el = document.createElement('div')
  document.body.appendChild(el)
  el.innerHTML = renderMarkdown(src)
  return el
}

// Code highlights as in the window once highlight.js has loaded (highlight.lazy.test.ts: before).
beforeAll(() => loadHighlight())

afterEach(() => {
  document.body.innerHTML = ''
  delete globalThis.__pwned
})

describe('renderMarkdown: untrusted model output', () => {
  it('the executes() probe itself detects script and handlers', () => {
    expect(executes('<script>window.__pwned = 1</script>')).toBe(1)
    expect(executes('<img src=x onerror="window.__pwned = 2">')).toBe(2)
  })

  it('drops <script> and never runs it', () => {
    const el = mount('Hello\n\n<script>globalThis.__pwned = 1</script>\n\nafter <script>window.__pwned = 2</script>')
    expect(el.querySelector('script')).toBeNull()
    expect(el.innerHTML).not.toMatch(/<script/i)
    expect(el.innerHTML).not.toContain('__pwned')
    expect(executes(renderMarkdown('<script>window.__pwned = 1</script>'))).toBeUndefined()
    expect(globalThis.__pwned).toBeUndefined()
    expect(el.textContent).toContain('Hello')
  })

  it('strips event handlers such as <img onerror>', () => {
    const el = mount('look <img src=x onerror="globalThis.__pwned = 1"> and <b onmouseover="globalThis.__pwned=2">bold</b>')
    expect(el.innerHTML).not.toMatch(/onerror|onmouseover/i)
    for (const node of el.querySelectorAll('*')) {
      for (const attr of node.attributes) expect(attr.name.startsWith('on')).toBe(false)
    }
    expect(executes(renderMarkdown('<img src=x onerror="window.__pwned = 1"><b onmouseover="window.__pwned = 2">b</b>'))).toBeUndefined()
  })

  it('strips javascript: links (Markdown and HTML) and opens other links safely', () => {
    const el = mount('[click](javascript:globalThis.__pwned=1) <a href="JaVaScRiPt:alert(1)">x</a> [ok](https://example.org/a)')
    const links = [...el.querySelectorAll('a')]
    for (const a of links) expect((a.getAttribute('href') ?? '').toLowerCase()).not.toContain('javascript:')
    const ok = links.find((a) => a.getAttribute('href') === 'https://example.org/a')
    expect(ok).toBeTruthy()
    expect(ok!.getAttribute('target')).toBe('_blank')
    expect(ok!.getAttribute('rel')).toContain('noopener')
  })

  it('loads nothing: no images, iframes or inline styles', () => {
    const el = mount('![tracker](https://example.org/pixel.png) <iframe src="https://example.org"></iframe> <span style="background:url(https://example.org/x)">s</span>')
    expect(el.querySelector('img, iframe')).toBeNull()
    expect(el.innerHTML).not.toContain('style=')
    // the image becomes a link the user may choose to open
    expect(el.querySelector('a')?.getAttribute('href')).toBe('https://example.org/pixel.png')
  })

  it('highlights fenced code and offers a copy button', () => {
    const el = mount('```go\nfunc main() { fmt.Println("hi") }\n```')
    const code = el.querySelector('pre code')!
    expect(code.classList.contains('hljs')).toBe(true)
    expect(code.classList.contains('language-go')).toBe(true)
    expect(code.querySelector('.hljs-keyword')?.textContent).toBe('func')
    expect(code.textContent).toBe('func main() { fmt.Println("hi") }')
    expect(el.querySelector('button[data-copy-code]')).not.toBeNull()
  })

  it('escapes code in unknown languages', () => {
    const el = mount('```weird<lang>\n<b>not bold</b>\n```')
    expect(el.querySelector('pre code b')).toBeNull()
    expect(el.querySelector('pre code')?.textContent).toBe('<b>not bold</b>')
  })

  it('renders ordinary Markdown: lists, tables, inline code, emphasis', () => {
    const el = mount('- one\n- two\n\n1. first\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nUse `go test` **now**.')
    expect(el.querySelectorAll('ul > li')).toHaveLength(2)
    expect(el.querySelector('ol > li')?.textContent).toBe('first')
    expect(el.querySelectorAll('table th')).toHaveLength(2)
    expect(el.querySelector('table td')?.textContent).toBe('1')
    expect(el.querySelector('p code')?.textContent).toBe('go test')
    expect(el.querySelector('strong')?.textContent).toBe('now')
  })
})
