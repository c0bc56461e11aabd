// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest'
import { flushSync } from 'svelte'
import { renderBlock, renderMarkdown } from './markdown'
import { mathState } from './mathState.svelte'

// A module instance of its own (vitest isolates test files): KaTeX is not loaded at first, as in
// a window that has shown no formula yet. Nothing else loads it: the first formula rendered does.
describe('math before KaTeX has loaded', () => {
  it('shows the source, loads KaTeX itself, then typesets, cached blocks included', async () => {
    expect(mathState.ready).toBe(false)
    const before = renderMarkdown('Euler: $e^{i\\pi}+1=0$')
    expect(before).toContain('<code>e^{i\\pi}+1=0</code>')
    expect(before).toContain('data-latex="$e^{i\\pi}+1=0$"')
    expect(before).not.toContain('katex')
    expect(renderBlock('$$x^2$$')).not.toContain('katex')

    await vi.waitFor(() => expect(mathState.ready).toBe(true), { timeout: 15_000 })
    flushSync()
    expect(mathState.ready).toBe(true)
    expect(renderMarkdown('Euler: $e^{i\\pi}+1=0$')).toContain('class="katex"')
    expect(renderBlock('$$x^2$$')).toContain('katex-display')
  }, 20_000)
})
