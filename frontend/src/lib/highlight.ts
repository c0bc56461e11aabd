// Code highlighting in model output. highlight.js is its own chunk (hljs.ts), loaded by the first
// code block rendered (knownLanguage calls loadHighlight), like KaTeX (math.ts), not with the
// page. Code met before it arrives is shown escaped, without colours; codeState.ready then
// renders the messages again (markdown.ts drops its block cache).
import type { HLJSApi } from 'highlight.js'
import { codeState } from './codeState.svelte'

let hljs: HLJSApi | undefined
let loading: Promise<void> | undefined

/** Loads highlight.js once; the promise settles when code highlights (codeState.ready is then true). */
export function loadHighlight(): Promise<void> {
  loading ??= import('./hljs').then(
    (m) => {
      hljs = m.default
      codeState.ready = true
    },
    (err: unknown) => {
      loading = undefined // a later code block tries again
      throw err
    },
  )
  return loading
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)
}

/**
 * The registered language a fence's name stands for (aliases included), or '' when there is
 * none or highlight.js has not loaded yet. Reading codeState makes the caller's $derived or
 * template depend on it, so it renders again when highlight.js arrives.
 */
export function knownLanguage(name: string): string {
  if (!name) return ''
  if (!codeState.ready || !hljs) {
    void loadHighlight().catch(() => {})
    return ''
  }
  return hljs.getLanguage(name) ? name : ''
}

/** Highlighted HTML for code in a known language (knownLanguage), escaped text otherwise. */
export function highlight(code: string, lang: string): string {
  if (lang && hljs?.getLanguage(lang)) {
    try {
      return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value
    } catch {
      // fall back to plain text
    }
  }
  return escapeHtml(code)
}
