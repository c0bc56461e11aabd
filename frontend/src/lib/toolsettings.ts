// The Settings fields of the tools beside the model providers (docs/WEB.md, docs/TOOLS.md):
// the images provider of generate_image and web access's search provider and allowed hosts.
// Their keys are secrets (SettingsService.SetToolKey), shown masked, never sent back in full.
import { t, type Key } from './i18n/index.svelte'
import type { ImagesCheck, Settings } from './types'

export type SearchProvider = 'duckduckgo' | 'searxng' | 'brave'
export type KeyEdit = { action: 'keep' | 'replace' | 'remove'; input: string }

export type ToolsForm = {
  imagesURL: string
  imagesModel: string
  imagesKey: KeyEdit
  search: SearchProvider
  searxngURL: string
  braveKey: KeyEdit
  /** As typed: hosts separated by commas, spaces or lines. */
  allowHosts: string
}

export const SEARCH_PROVIDERS: { value: SearchProvider; label: string; hint: Key }[] = [
  { value: 'duckduckgo', label: 'DuckDuckGo', hint: 'search.hintDuck' },
  { value: 'searxng', label: 'SearXNG', hint: 'search.hintSearx' },
  { value: 'brave', label: 'Brave Search', hint: 'search.hintBrave' },
]

/** The provider Settings names, or the one an unnamed choice falls to (as Go picks it). */
function searchOf(s: Settings | null): SearchProvider {
  const p = s?.web_search?.provider
  if (p === 'duckduckgo' || p === 'searxng' || p === 'brave') return p
  if (s?.web_search?.searxng_url) return 'searxng'
  if (s?.tool_keys?.brave) return 'brave'
  return 'duckduckgo'
}

export function toToolsForm(s: Settings | null): ToolsForm {
  return {
    imagesURL: s?.images?.base_url ?? '',
    imagesModel: s?.images?.model ?? '',
    imagesKey: { action: 'keep', input: '' },
    search: searchOf(s),
    searxngURL: s?.web_search?.searxng_url ?? '',
    braveKey: { action: 'keep', input: '' },
    allowHosts: (s?.web_allow_hosts ?? []).join(', '),
  }
}

/** Splits the allowed hosts as typed. */
export function parseHosts(text: string): string[] {
  const out: string[] = []
  for (const h of text.split(/[\s,]+/)) {
    const host = h.trim().toLowerCase()
    if (host && !out.includes(host)) out.push(host)
  }
  return out
}

/** Writes the form's tool settings into out (the Settings sent to Update). */
export function applyTools(out: Settings, f: ToolsForm) {
  const url = f.imagesURL.trim().replace(/\/+$/, '')
  if (url || f.imagesModel.trim()) out.images = { base_url: url, model: f.imagesModel.trim() }
  else delete out.images
  const searx = f.searxngURL.trim().replace(/\/+$/, '')
  // The default (DuckDuckGo, nothing set) is left as it was: a Save changes nothing unasked.
  if (f.search !== 'duckduckgo' || searx || out.web_search?.provider) out.web_search = { provider: f.search, ...(searx ? { searxng_url: searx } : {}) }
  const hosts = parseHosts(f.allowHosts)
  if (hosts.length) out.web_allow_hosts = hosts
  else delete out.web_allow_hosts
}

/** The SetToolKey calls to make once the configuration is saved. */
export function toolKeyChanges(f: ToolsForm): { name: string; key: string }[] {
  const out: { name: string; key: string }[] = []
  const edit = (name: string, k: KeyEdit) => {
    if (k.action === 'remove') out.push({ name, key: '' })
    else if (k.input.trim()) out.push({ name, key: k.input.trim() })
  }
  edit('images', f.imagesKey)
  if (f.search === 'brave') edit('brave', f.braveKey)
  return out
}

export type ToolHints = { imagesURL?: string; searxngURL?: string; braveKey?: string; allowHosts?: string; imagesKey?: string }

const httpURL = (s: string) => {
  try {
    const u = new URL(s)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== ''
  } catch {
    return false
  }
}

// A host name or an address, without scheme, port or path (what web.Guard compares).
const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/
const IPV6 = /^[0-9a-f:]+$/

/** Problems to fix before saving (the same rules as Go's, so Save rarely fails); stored says
 * which keys are stored (masked values, '' none). */
export function validateTools(f: ToolsForm, stored: Record<string, string>): ToolHints {
  const h: ToolHints = {}
  const url = f.imagesURL.trim()
  if (url && !httpURL(url)) h.imagesURL = t('check.notHttp', { example: 'https://api.openai.com' })
  if (!url && (f.imagesModel.trim() || f.imagesKey.input.trim())) h.imagesURL = t('check.imagesURL')
  if (/[\s,]/.test(f.imagesKey.input.trim())) h.imagesKey = t('check.oneKey')
  if (f.search === 'searxng') {
    const s = f.searxngURL.trim()
    if (!s) h.searxngURL = t('check.searxURL')
    else if (!httpURL(s)) h.searxngURL = t('check.notHttp', { example: 'http://127.0.0.1:8888' })
  }
  if (f.search === 'brave') {
    const typed = f.braveKey.input.trim()
    if (/[\s,]/.test(typed)) h.braveKey = t('check.oneKey')
    else if (!typed && (!stored.brave || f.braveKey.action === 'remove')) h.braveKey = t('check.braveKey')
  }
  const bad = parseHosts(f.allowHosts).filter((x) => !HOST.test(x) && !(x.includes(':') && IPV6.test(x)))
  if (bad.length) h.allowHosts = t('check.badHosts', { list: bad.join(', ') })
  return h
}

/** What the images provider's "Test connection" shows. */
export function imagesCheckText(c: ImagesCheck, model: string): { ok: boolean; text: string } {
  if (c.error) return { ok: false, text: c.error }
  const n = c.models
  if (!model.trim()) return { ok: true, text: t('check.imagesListed', { n, s: n === 1 ? '' : 's' }) }
  if (c.listed) return { ok: true, text: t('check.imagesHas', { model: model.trim(), n, s: n === 1 ? '' : 's' }) }
  return { ok: false, text: t('check.imagesHasNot', { model: model.trim(), n, s: n === 1 ? '' : 's' }) }
}
