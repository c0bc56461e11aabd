import { describe, expect, it } from 'vitest'
import { flushSync } from 'svelte'
import { renderBlock, renderMarkdown } from './markdown'
import { loadMath } from './math'
import { mathState } from './mathState.svelte'

// A module instance of its own (vitest isolates test files): KaTeX is not loaded at first, as in
// the window before its first paint.
describe('math before KaTeX has loaded', () => {
  it('shows the source, then typesets once KaTeX arrives, cached blocks included', async () => {
    expect(mathState.ready).toBe(false)
    const before = renderMarkdown('Euler: $e^{i\\pi}+1=0$')
    expect(before).toContain('<code>e^{i\\pi}+1=0</code>')
    expect(before).toContain('data-latex="$e^{i\\pi}+1=0$"')
    expect(before).not.toContain('katex')
    expect(renderBlock('$$x^2$$')).not.toContain('katex')

    await loadMath()
    flushSync()
    expect(mathState.ready).toBe(true)
    expect(renderMarkdown('Euler: $e^{i\\pi}+1=0$')).toContain('class="katex"')
    expect(renderBlock('$$x^2$$')).toContain('katex-display')
  })
})
