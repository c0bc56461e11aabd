// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { applyTheme, effectiveTheme, setTheme, storedTheme, themeOf } from './theme'

describe('theme', () => {
  it('reads a stored value, anything unknown being system', () => {
    expect(themeOf('dark')).toBe('dark')
    expect(themeOf('light')).toBe('light')
    expect(themeOf('blue')).toBe('system')
    expect(themeOf(null)).toBe('system')
  })
  it('follows the system only when asked to', () => {
    expect(effectiveTheme('system', true)).toBe('dark')
    expect(effectiveTheme('system', false)).toBe('light')
    expect(effectiveTheme('light', true)).toBe('light')
    expect(effectiveTheme('dark', false)).toBe('dark')
  })
  it('sets the root attribute the CSS reads, and persists the choice', () => {
    const root = document.createElement('html')
    applyTheme('dark', root)
    expect(root.dataset.theme).toBe('dark')
    applyTheme('light', root)
    expect(root.dataset.theme).toBe('light')
    setTheme('dark')
    expect(storedTheme()).toBe('dark')
    expect(document.documentElement.dataset.theme).toBe('dark')
    setTheme('system')
    expect(storedTheme()).toBe('system')
  })
})
