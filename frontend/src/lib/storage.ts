/** The page's localStorage, or null where there is none or it is refused (a sandboxed frame,
 * a webview with storage off): the window's own choices (theme, language) are then not kept. */
export function localStore(): Storage | null {
  try {
    return globalThis.localStorage ?? null
  } catch {
    return null
  }
}
