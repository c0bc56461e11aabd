// The page's own tooltips in place of the native `title` ones. WebKitGTK keeps a native tooltip
// on screen after a click opens a modal over its button, and after the button is gone (issue
// 36); these hide on any click, key, scroll or when their element leaves the page. An element's
// `title` moves to `data-tip` while the pointer is on it, so the native one never shows.

const DELAY_MS = 500 // as long as a native tooltip waits
const GAP_PX = 6

type Tip = { el: HTMLElement; node: HTMLDivElement; timer: ReturnType<typeof setTimeout> | null; watch: number | null }

/** Installs the tooltips on a document; returns the uninstall. */
export function installTooltips(doc: Document = document): () => void {
  let tip: Tip | null = null

  function hide() {
    if (!tip) return
    if (tip.timer) clearTimeout(tip.timer)
    if (tip.watch !== null) cancelAnimationFrame(tip.watch)
    tip.node.remove()
    restore(tip.el)
    tip = null
  }
  function restore(el: HTMLElement) {
    const text = el.getAttribute('data-tip')
    if (text !== null && !el.hasAttribute('title')) el.setAttribute('title', text)
    el.removeAttribute('data-tip')
    if (el.hasAttribute('data-tip-label')) {
      el.removeAttribute('aria-label')
      el.removeAttribute('data-tip-label')
    }
  }
  function show(el: HTMLElement) {
    if (!tip || tip.el !== el || !el.isConnected) return
    const text = el.getAttribute('data-tip') ?? ''
    if (!text.trim()) return
    const node = tip.node
    node.textContent = text
    // Inside a modal <dialog> (the top layer) a tooltip must be in the dialog to be seen.
    ;(el.closest('dialog[open]') ?? doc.body).appendChild(node)
    const r = el.getBoundingClientRect()
    const w = node.offsetWidth
    const h = node.offsetHeight
    const vw = doc.documentElement.clientWidth
    const vh = doc.documentElement.clientHeight
    let top = r.bottom + GAP_PX
    if (top + h > vh - 4) top = Math.max(4, r.top - h - GAP_PX)
    const left = Math.min(Math.max(4, r.left + r.width / 2 - w / 2), vw - w - 4)
    node.style.top = `${top}px`
    node.style.left = `${left}px`
    // The element can leave the page under the pointer (a menu closes, a row is deleted):
    // the tooltip goes with it.
    const watch = () => {
      if (!tip) return
      if (!tip.el.isConnected) return hide()
      tip.watch = requestAnimationFrame(watch)
    }
    tip.watch = requestAnimationFrame(watch)
  }

  function over(e: Event) {
    const el = (e.target as Element | null)?.closest?.('[title], [data-tip]') as HTMLElement | null
    if (!el || tip?.el === el) return
    hide()
    const text = el.getAttribute('title') ?? el.getAttribute('data-tip')
    if (!text) return
    // A native tooltip is the only way to see a title inside an open <select>'s options.
    if (el.tagName === 'OPTION') return
    el.setAttribute('data-tip', text)
    el.removeAttribute('title')
    // An icon button named only by its title keeps its accessible name meanwhile.
    if (!el.hasAttribute('aria-label') && !el.textContent?.trim()) {
      el.setAttribute('aria-label', text)
      el.setAttribute('data-tip-label', '')
    }
    const node = doc.createElement('div')
    node.className = 'tofu-tip'
    node.setAttribute('role', 'tooltip')
    node.dataset.testid = 'tooltip'
    tip = { el, node, timer: setTimeout(() => show(el), DELAY_MS), watch: null }
  }
  function out(e: Event) {
    if (!tip) return
    const to = (e as PointerEvent).relatedTarget as Node | null
    if (to && tip.el.contains(to)) return
    hide()
  }

  if (!doc.getElementById('tofu-tip-style')) {
    const style = doc.createElement('style')
    style.id = 'tofu-tip-style'
    style.textContent = `.tofu-tip{position:fixed;z-index:1000;max-width:320px;padding:4px 8px;border-radius:6px;
background:var(--text,#222);color:var(--bg,#fff);font-size:0.76rem;line-height:1.35;pointer-events:none;
white-space:pre-line;overflow-wrap:anywhere;box-shadow:0 2px 8px rgba(0,0,0,.18)}`
    doc.head.appendChild(style)
  }
  doc.addEventListener('pointerover', over, true)
  doc.addEventListener('pointerout', out, true)
  const gone = ['pointerdown', 'keydown', 'wheel', 'scroll', 'blur']
  for (const t of gone) doc.addEventListener(t, hide, true)
  return () => {
    hide()
    doc.removeEventListener('pointerover', over, true)
    doc.removeEventListener('pointerout', out, true)
    for (const t of gone) doc.removeEventListener(t, hide, true)
  }
}
