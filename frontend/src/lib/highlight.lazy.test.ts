// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest'
import { flushSync } from 'svelte'
import { codeState } from './codeState.svelte'
import { IncrementalMarkdown, renderBlock, renderMarkdown } from './markdown'

const goCode = '```go\nfunc main() {}\n```\n'

// A module instance of its own (vitest isolates test files): highlight.js is not loaded at first,
// as in a window that has shown no code yet. Nothing else loads it: the first code block rendered
// does.
describe('code before highlight.js has loaded', () => {
  it('shows the code plain, loads highlight.js itself, then highlights, cached blocks included', async () => {
    expect(codeState.ready).toBe(false)
    const before = renderMarkdown(goCode)
    expect(before).toContain('<code class="hljs">func main() {}</code>')
    expect(before).toContain('<span class="code-lang">go</span>')
    expect(renderBlock(goCode)).not.toContain('hljs-keyword')
    const md = new IncrementalMarkdown()
    expect(md.update(goCode, false).map((b) => b.html).join('')).not.toContain('hljs-keyword')

    await vi.waitFor(() => expect(codeState.ready).toBe(true), { timeout: 15_000 })
    flushSync()
    expect(codeState.ready).toBe(true)
    const after = renderMarkdown(goCode)
    expect(after).toContain('<code class="hljs language-go">')
    expect(after).toContain('<span class="hljs-keyword">func</span>')
    expect(renderBlock(goCode)).toContain('hljs-keyword')
    expect(md.update(goCode, false).map((b) => b.html).join('')).toContain('hljs-keyword')
  }, 20_000)
})
