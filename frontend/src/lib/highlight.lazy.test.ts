import { describe, expect, it } from 'vitest'
import { flushSync } from 'svelte'
import { codeState } from './codeState.svelte'
import { loadHighlight } from './highlight'
import { IncrementalMarkdown, renderBlock, renderMarkdown } from './markdown'

const goCode = '```go\nfunc main() {}\n```\n'

// A module instance of its own (vitest isolates test files): highlight.js is not loaded at first,
// as in the window before its first paint.
describe('code before highlight.js has loaded', () => {
  it('shows the code plain, then highlighted once highlight.js arrives, cached blocks included', async () => {
    expect(codeState.ready).toBe(false)
    const before = renderMarkdown(goCode)
    expect(before).toContain('<code class="hljs">func main() {}</code>')
    expect(before).toContain('<span class="code-lang">go</span>')
    expect(renderBlock(goCode)).not.toContain('hljs-keyword')
    const md = new IncrementalMarkdown()
    expect(md.update(goCode, false).map((b) => b.html).join('')).not.toContain('hljs-keyword')

    await loadHighlight()
    flushSync()
    expect(codeState.ready).toBe(true)
    const after = renderMarkdown(goCode)
    expect(after).toContain('<code class="hljs language-go">')
    expect(after).toContain('<span class="hljs-keyword">func</span>')
    expect(renderBlock(goCode)).toContain('hljs-keyword')
    expect(md.update(goCode, false).map((b) => b.html).join('')).toContain('hljs-keyword')
  })
})
