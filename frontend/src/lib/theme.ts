// The window's look: system (follows the desktop's light or dark preference), light or dark,
// chosen in Settings and kept in localStorage. app.css holds the colours; the root's
// data-theme attribute picks the dark set.

import { localStore } from './storage'

export type Theme = 'system' | 'light' | 'dark'
export const THEMES: readonly Theme[] = ['system', 'light', 'dark']
const KEY = 'tofu.theme'

/** The theme a stored value means ('system' for anything unknown). */
export function themeOf(v: string | null | undefined): Theme {
  return v === 'light' || v === 'dark' ? v : 'system'
}

/** Light or dark, for a theme and whether the system prefers dark. */
export function effectiveTheme(t: Theme, systemDark: boolean): 'light' | 'dark' {
  return t === 'system' ? (systemDark ? 'dark' : 'light') : t
}

export function storedTheme(): Theme {
  return themeOf(localStore()?.getItem(KEY))
}

let unwatch: (() => void) | null = null

/** Applies t to the page (and keeps following the system while t is 'system'). */
export function applyTheme(t: Theme, root: HTMLElement = document.documentElement) {
  unwatch?.()
  unwatch = null
  const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null
  const set = () => {
    root.dataset.theme = effectiveTheme(t, media?.matches === true)
  }
  set()
  if (t === 'system' && media) {
    media.addEventListener('change', set)
    unwatch = () => media.removeEventListener('change', set)
  }
}

/** Chooses t: applied now and kept for the next start. */
export function setTheme(t: Theme) {
  localStore()?.setItem(KEY, t)
  applyTheme(t)
}
