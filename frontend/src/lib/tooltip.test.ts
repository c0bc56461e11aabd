// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { installTooltips } from './tooltip'

describe('tooltips (regression, issue 36: native tooltips stayed over the modal their button opened, and after the button was gone)', () => {
  let uninstall = () => {}
  afterEach(() => {
    uninstall()
    document.body.innerHTML = ''
    vi.useRealTimers()
  })

  function hover(el: Element) {
    el.dispatchEvent(new Event('pointerover', { bubbles: true }))
  }

  it('shows the title after a pause, with no native title meanwhile, and hides on a click', () => {
    vi.useFakeTimers()
    uninstall = installTooltips(document)
    document.body.innerHTML = '<button id="b" title="Settings">⚙</button>'
    const b = document.getElementById('b')!
    hover(b)
    expect(b.hasAttribute('title')).toBe(false)
    vi.advanceTimersByTime(600)
    expect(document.querySelector('[data-testid="tooltip"]')?.textContent).toBe('Settings')
    b.dispatchEvent(new Event('pointerdown', { bubbles: true }))
    expect(document.querySelector('[data-testid="tooltip"]')).toBeNull()
    expect(b.getAttribute('title')).toBe('Settings')
  })

  it('never shows for an element removed before the pause ends', () => {
    vi.useFakeTimers()
    uninstall = installTooltips(document)
    document.body.innerHTML = '<button id="b" title="Delete">x</button>'
    const b = document.getElementById('b')!
    hover(b)
    b.remove()
    vi.advanceTimersByTime(600)
    expect(document.querySelector('[data-testid="tooltip"]')).toBeNull()
  })
})
