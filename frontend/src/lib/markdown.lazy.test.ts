// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest'
import { flushSync } from 'svelte'
import { codeState } from './codeState.svelte'
import { IncrementalMarkdown, renderMarkdown, type Block } from './markdown'
import { mathState } from './mathState.svelte'

const join = (blocks: Block[]) => blocks.map((b) => b.html).join('')

// A module instance of its own (vitest isolates test files): neither KaTeX nor highlight.js has
// loaded, as in a window that has shown no formula and no code yet.
describe('a reply streamed while KaTeX and highlight.js load', () => {
  it('renders its finished blocks again once they have, and ends as the one-shot render', async () => {
    expect(mathState.ready).toBe(false)
    expect(codeState.ready).toBe(false)
    const text = 'Euler: $e^{i\\pi}+1=0$\n\n```go\nfunc main() {}\n```\n\nDone.\n\nThe end.\n'
    const md = new IncrementalMarkdown()
    const upTo = text.indexOf('The end.')
    let blocks: Block[] = []
    for (let i = 1; i <= upTo; i++) blocks = md.update(text.slice(0, i), true)
    // Finished before either loaded: the formula as its source, the code without colours.
    expect(blocks.filter((b) => b.key !== 'tail').length).toBeGreaterThanOrEqual(2)
    expect(join(blocks)).toContain('<code>e^{i\\pi}+1=0</code>')
    expect(join(blocks)).not.toContain('hljs-keyword')

    // Rendering them loaded both (math.ts, highlight.ts).
    await vi.waitFor(() => expect(mathState.ready && codeState.ready).toBe(true), { timeout: 15_000 })
    flushSync()
    blocks = md.update(text.slice(0, upTo), true)
    expect(join(blocks)).toContain('class="katex"')
    expect(join(blocks)).toContain('hljs-keyword')
    // The final update returns blocks rendered with both, as the one-shot render is.
    const final = md.update(text, false)
    expect(join(final)).toBe(renderMarkdown(text))
    expect(final.length).toBeGreaterThan(1)
  }, 20_000)
})
