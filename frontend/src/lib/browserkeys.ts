// How the live browser view forwards the user's keys to the page (BrowserService.Key and
// Type): keys that edit or move (Tab, Backspace, arrows, Escape, …) and any key held with
// Control, Alt or Meta go as a chord ("Shift+Tab", "Control+a"); a plain character goes as
// text; modifier keys pressed alone go nowhere (they arrive with the key they modify).

/** The keys forwarded by name, as the page's KeyboardEvent.key names them. */
const NAMED = new Set([
  'Enter', 'Tab', 'Backspace', 'Delete', 'Escape', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight',
  'Home', 'End', 'PageUp', 'PageDown', ' ',
])

const MODIFIERS = new Set(['Control', 'Shift', 'Alt', 'Meta', 'AltGraph', 'CapsLock'])

export type KeyLike = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'shiftKey' | 'altKey' | 'metaKey'>

/** What a key press becomes: a chord for BrowserService.Key, text for Type, or nothing. */
export type Forward = { keys: string } | { text: string } | null

export function forwardKey(e: KeyLike): Forward {
  if (MODIFIERS.has(e.key) || e.key === 'Dead' || e.key === 'Unidentified') return null
  const chord = e.ctrlKey || e.altKey || e.metaKey
  const named = NAMED.has(e.key)
  if (!named && !chord) return e.key.length === 1 ? { text: e.key } : null
  if (!named && e.key.length !== 1) return null // F1, media keys…: nothing the page needs
  // "+" separates a chord's keys: it goes as text unless held with a modifier we cannot name.
  if (e.key === '+') return chord ? null : { text: '+' }
  const name = e.key === ' ' ? 'Space' : e.key
  const mods: string[] = []
  if (e.ctrlKey) mods.push('Control')
  if (e.altKey) mods.push('Alt')
  if (e.metaKey) mods.push('Meta')
  // Shift changes a character itself ("A"); it is a modifier only for named keys.
  if (e.shiftKey && named) mods.push('Shift')
  if (name === 'Space' && mods.length === 0) return { text: ' ' }
  return { keys: [...mods, name].join('+') }
}

/** Wheel deltas in pixels (a line is about 40 px, a page the view's height). */
export function wheelPixels(e: Pick<WheelEvent, 'deltaX' | 'deltaY' | 'deltaMode'>, pageHeight: number): { dx: number; dy: number } {
  const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? pageHeight : 1
  return { dx: e.deltaX * unit, dy: e.deltaY * unit }
}
