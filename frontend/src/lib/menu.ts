// Keyboard and pointer behaviour shared by the toolbar's menus: arrows move between items,
// Escape closes and gives focus back to the chip, a click outside closes.
import { tick } from 'svelte'
import { nextIndex } from './toolbar'

const ITEMS = '[role="menuitemcheckbox"]:not([disabled]), [role="menuitemradio"]:not([disabled]), [role="menuitem"]:not([disabled])'

/** Handles a key pressed inside an open menu; returns true when it was the menu's. */
export function menuKey(e: KeyboardEvent, menu: HTMLElement | undefined, close: () => void): boolean {
  if (!menu) return false
  if (e.key === 'Escape') {
    e.preventDefault()
    e.stopPropagation() // Esc here closes the menu, not the reply
    close()
    return true
  }
  const items = [...menu.querySelectorAll<HTMLElement>(ITEMS)]
  const i = nextIndex(e.key, items.indexOf(document.activeElement as HTMLElement), items.length)
  if (i === null) return false
  e.preventDefault()
  items[i]?.focus()
  return true
}

/** Focuses a menu's first item once it is in the page (menu is read after the update). */
export function focusFirst(menu: () => HTMLElement | undefined) {
  void tick().then(() => menu()?.querySelector<HTMLElement>(ITEMS)?.focus())
}

/** Calls close when a pointer goes down outside root; returns the unsubscribe. */
export function onOutside(root: HTMLElement | undefined, close: () => void): () => void {
  const handler = (e: PointerEvent) => {
    if (root && !root.contains(e.target as Node)) close()
  }
  document.addEventListener('pointerdown', handler, true)
  return () => document.removeEventListener('pointerdown', handler, true)
}
