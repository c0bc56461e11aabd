import { describe, expect, it } from 'vitest'
import { forwardKey, wheelPixels } from './browserkeys'

const key = (k: string, mods: { ctrl?: boolean; shift?: boolean; alt?: boolean; meta?: boolean } = {}) => ({
  key: k, ctrlKey: !!mods.ctrl, shiftKey: !!mods.shift, altKey: !!mods.alt, metaKey: !!mods.meta,
})

describe('forwardKey', () => {
  it('sends keys that edit and move by name', () => {
    for (const k of ['Tab', 'Backspace', 'Delete', 'Escape', 'Enter', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']) {
      expect(forwardKey(key(k))).toEqual({ keys: k })
    }
  })
  it('puts the modifiers before the key', () => {
    expect(forwardKey(key('Tab', { shift: true }))).toEqual({ keys: 'Shift+Tab' })
    expect(forwardKey(key('a', { ctrl: true }))).toEqual({ keys: 'Control+a' })
    expect(forwardKey(key('ArrowLeft', { ctrl: true, shift: true }))).toEqual({ keys: 'Control+Shift+ArrowLeft' })
    expect(forwardKey(key('z', { meta: true }))).toEqual({ keys: 'Meta+z' })
    expect(forwardKey(key('f', { alt: true }))).toEqual({ keys: 'Alt+f' })
  })
  it('types plain characters as text, Shift included', () => {
    expect(forwardKey(key('a'))).toEqual({ text: 'a' })
    expect(forwardKey(key('A', { shift: true }))).toEqual({ text: 'A' })
    expect(forwardKey(key('é'))).toEqual({ text: 'é' })
    expect(forwardKey(key(' '))).toEqual({ text: ' ' })
    expect(forwardKey(key('+'))).toEqual({ text: '+' })
  })
  it('sends a held space as a chord', () => {
    expect(forwardKey(key(' ', { ctrl: true }))).toEqual({ keys: 'Control+Space' })
  })
  it('ignores modifiers alone and keys the page has no name for', () => {
    for (const k of ['Shift', 'Control', 'Alt', 'Meta', 'CapsLock', 'Dead', 'Unidentified']) expect(forwardKey(key(k))).toBeNull()
    expect(forwardKey(key('F5'))).toBeNull()
    expect(forwardKey(key('F5', { ctrl: true }))).toBeNull()
    expect(forwardKey(key('+', { ctrl: true }))).toBeNull()
  })
})

describe('wheelPixels', () => {
  it('turns lines and pages into pixels', () => {
    expect(wheelPixels({ deltaX: 0, deltaY: 120, deltaMode: 0 }, 800)).toEqual({ dx: 0, dy: 120 })
    expect(wheelPixels({ deltaX: 1, deltaY: 3, deltaMode: 1 }, 800)).toEqual({ dx: 40, dy: 120 })
    expect(wheelPixels({ deltaX: 0, deltaY: -1, deltaMode: 2 }, 800)).toEqual({ dx: 0, dy: -800 })
  })
})
