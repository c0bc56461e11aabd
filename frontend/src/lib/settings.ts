// Pure helpers of the Settings view: Settings ↔ form, the hints shown before saving (the same
// rules as backend/config.Validate, so most mistakes are caught before Go refuses them), and the
// API key changes to send after the configuration is saved.
import { t } from './i18n/index.svelte'
import { checkTime } from './myday'
import { applyTools, toToolsForm, validateTools, type ToolHints, type ToolsForm } from './toolsettings'
import { fromRows, toRows, validateRules, type RuleHints, type RuleRow } from './rules'
import type { ProviderCheck, ProviderConfig, ProviderType, Settings, Thinking } from './types'

export const PROVIDER_TYPES: { value: ProviderType; label: string }[] = [
  { value: 'ollama', label: 'Ollama' },
  { value: 'openai', label: 'OpenAI-compatible' },
  { value: 'anthropic', label: 'Anthropic' },
]

export const THINKING_LEVELS: Thinking[] = ['off', 'low', 'medium', 'high']

export const DEFAULT_CONTEXT_CAP = 32768
export const MIN_CONTEXT_CAP = 2048

/** The base URL a provider type uses when none is set: what Go resolved (`defaults`, from
 * Settings.default_base_urls; Ollama's follows OLLAMA_HOST), else the built-in default. */
export function defaultBaseURL(type: ProviderType, defaults?: Record<string, string> | null): string {
  const resolved = defaults?.[type]
  if (resolved) return resolved
  switch (type) {
    case 'openai':
      return 'https://api.openai.com/v1'
    case 'anthropic':
      return 'https://api.anthropic.com'
    default:
      return 'http://127.0.0.1:11434'
  }
}

/** Provider types that authenticate with API keys. */
export function needsKey(type: ProviderType): boolean {
  return type === 'openai' || type === 'anthropic'
}

/** What to do with a provider's stored keys when saving. */
export type KeyAction = 'keep' | 'replace' | 'remove'

export type ProviderRow = {
  /** Stable id for keyed lists (not saved). */
  id: number
  name: string
  type: ProviderType
  base_url: string
  /** The name the provider was saved under (its keys are stored under it); null for a new row. */
  saved: string | null
  keyAction: KeyAction
  /** Keys typed in (several separated by spaces, commas or new lines). */
  keyInput: string
}

export type SettingsForm = {
  providers: ProviderRow[]
  main: string
  cheap: string
  translation: string
  fallback: { id: number; ref: string }[]
  thinking: Thinking
  /** As typed; empty means 0 (the default). */
  contextCap: string
  webAccess: boolean
  browserVisible: boolean
  /** The desktop tools (screenshots, mouse, keyboard) for agent turns. */
  desktop: boolean
  /** Relevant memory records are put before each agent turn. */
  memoryRecall: boolean
  /** The agent's commands run outside the sandbox (a person's explicit choice). */
  unconfined: boolean
  /** The approval rules, in order. */
  rules: RuleRow[]
  /** My Day's daily time, "HH:MM" ("" : only when asked). */
  mydayAt: string
  /** The images provider and web search (toolsettings.ts). */
  tools: ToolsForm
}

let nextId = 1
const newId = () => nextId++

const asType = (t: unknown): ProviderType => (t === 'openai' || t === 'anthropic' ? t : 'ollama')
const asThinking = (t: unknown): Thinking => (t === 'low' || t === 'medium' || t === 'high' ? t : 'off')

export function toForm(s: Settings | null): SettingsForm {
  const providers = (s?.providers ?? []).map((p) => ({
    id: newId(),
    name: p.name ?? '',
    type: asType(p.type),
    base_url: p.base_url ?? '',
    saved: p.name ?? '',
    keyAction: 'keep' as KeyAction,
    keyInput: '',
  }))
  return {
    providers: providers.length > 0 ? providers : [newProvider([], 'ollama')],
    main: s?.models?.main ?? '',
    cheap: s?.models?.cheap ?? '',
    translation: s?.models?.translation ?? '',
    fallback: (s?.fallback ?? []).map((ref) => ({ id: newId(), ref })),
    thinking: asThinking(s?.thinking),
    contextCap: s?.context_window_cap ? String(s.context_window_cap) : '',
    webAccess: !!s?.web_access,
    browserVisible: !!s?.browser_visible,
    desktop: !!s?.desktop,
    memoryRecall: !s?.memory_recall_off,
    unconfined: s?.commands === 'unconfined',
    rules: toRows(s?.permissions?.rules),
    mydayAt: s?.myday_at ?? '',
    tools: toToolsForm(s),
  }
}

/** A new provider row with a free name ("openai", "openai-2", …). */
export function newProvider(existing: ProviderRow[], type: ProviderType = 'openai'): ProviderRow {
  const taken = new Set(existing.map((p) => p.name.trim()))
  let name: string = type
  for (let i = 2; taken.has(name); i++) name = `${type}-${i}`
  return { id: newId(), name, type, base_url: '', saved: null, keyAction: 'replace', keyInput: '' }
}

export function newFallback(ref = ''): { id: number; ref: string } {
  return { id: newId(), ref }
}

/** The context window cap as a number: empty → 0; NaN when it is not a whole number. */
export function parseCap(text: string): number {
  const t = text.trim().replace(/[\s,_]/g, '')
  if (t === '') return 0
  return /^\d+$/.test(t) ? Number(t) : NaN
}

/** The Settings to send to SettingsService.Update (read-only fields are carried over). */
export function fromForm(f: SettingsForm, base: Settings | null = null): Settings {
  const cap = parseCap(f.contextCap)
  const models: Settings['models'] = {}
  if (f.main.trim()) models.main = f.main.trim()
  if (f.cheap.trim()) models.cheap = f.cheap.trim()
  if (f.translation.trim()) models.translation = f.translation.trim()
  const out: Settings = {
    ...(base ?? {}),
    providers: f.providers.map((p) => {
      const url = p.base_url.trim().replace(/\/+$/, '')
      return url ? { name: p.name.trim(), type: p.type, base_url: url } : { name: p.name.trim(), type: p.type }
    }),
    models,
    fallback: f.fallback.map((x) => x.ref.trim()).filter(Boolean),
    thinking: f.thinking,
    context_window_cap: Number.isFinite(cap) ? cap : 0,
  }
  // Go omits web_access when it is off: keep the round trip exact.
  if (f.webAccess || base?.web_access !== undefined) out.web_access = f.webAccess
  if (f.browserVisible || base?.browser_visible !== undefined) out.browser_visible = f.browserVisible
  if (f.desktop || base?.desktop !== undefined) out.desktop = f.desktop
  // Likewise memory_recall_off when recall is on (the default).
  if (!f.memoryRecall || base?.memory_recall_off !== undefined) out.memory_recall_off = !f.memoryRecall
  // Commands run in the sandbox unless a person chose otherwise; the default is left unwritten.
  if (f.unconfined) out.commands = 'unconfined'
  else delete out.commands
  applyTools(out, f.tools)
  if (f.mydayAt.trim()) out.myday_at = f.mydayAt.trim()
  else delete out.myday_at
  // Rules are sent whole (an empty list clears them); Go omits them when there are none.
  if (f.rules.length > 0 || base?.permissions !== undefined) out.permissions = { rules: fromRows(f.rules) }
  return out
}

/** Splits what was typed into a key field into keys. */
export function parseKeys(text: string): string[] {
  const out: string[] = []
  for (const k of text.split(/[\s,]+/)) if (k && !out.includes(k)) out.push(k)
  return out
}

/** The SetAPIKeys calls to make once the configuration is saved. */
export function keyChanges(f: SettingsForm): { provider: string; keys: string[] }[] {
  const out: { provider: string; keys: string[] }[] = []
  for (const p of f.providers) {
    const name = p.name.trim()
    if (!name || !needsKey(p.type)) continue
    if (p.keyAction === 'remove') out.push({ provider: name, keys: [] })
    else {
      // Whatever was typed replaces the stored keys; nothing typed keeps them.
      const keys = parseKeys(p.keyInput)
      if (keys.length > 0) out.push({ provider: name, keys })
    }
  }
  return out
}

/** Whether a key has been typed or marked for removal in the form: provider keys and the tools'
 *  keys (images, Brave). fromForm leaves keys out (they are saved apart, never sent back), so a
 *  form that equals what it was read from may still hold a key the user typed. */
export function hasKeyEdits(f: SettingsForm): boolean {
  const edited = (action: string, input: string) => action === 'remove' || input.trim() !== ''
  return (
    f.providers.some((p) => edited(p.keyAction, p.keyInput)) ||
    edited(f.tools.imagesKey.action, f.tools.imagesKey.input) ||
    edited(f.tools.braveKey.action, f.tools.braveKey.input)
  )
}

/** The arguments of ModelService.TestProvider for a row as edited: the keys typed in, else
 *  the keys stored under its saved name (none when they are about to be removed). */
export function connectionRequest(p: ProviderRow): { provider: ProviderConfig; saved: string; keys: string[] } {
  const provider: ProviderConfig = { name: p.name.trim(), type: p.type }
  if (p.base_url.trim()) provider.base_url = p.base_url.trim()
  if (!needsKey(p.type)) return { provider, saved: '', keys: [] }
  const keys = p.keyAction === 'keep' ? [] : parseKeys(p.keyInput)
  return { provider, saved: p.keyAction === 'remove' ? '' : (p.saved ?? ''), keys }
}

/** What "Test connection" shows: "Connected: 3 models", or the error exactly, with its hint. */
export function connectionText(r: ProviderCheck): { ok: boolean; text: string } {
  if (r.error) {
    const { message, hint } = r.error
    // Go's messages end without a full stop ("cannot reach Ollama at …"): one before the hint.
    return { ok: false, text: hint ? `${message}${/[.!?]$/.test(message) ? '' : '.'} ${hint}` : message }
  }
  if (r.models === 0) return { ok: false, text: t('check.noModels') }
  return { ok: true, text: r.models === 1 ? t('check.oneModel') : t('check.models', { n: r.models }) }
}

/** "No key stored", "1 key stored", "3 keys stored" */
export function keyStatus(n: number): string {
  if (!n) return t('keys.none')
  return n === 1 ? t('keys.one') : t('keys.many', { n })
}

/** Where keys are kept, in words. */
export function keysStoreLabel(store: string | undefined): string {
  if (!store) return 'unknown'
  return store === 'keyring' ? 'the system keyring' : store
}

export type Hints = {
  providers: Record<number, { name?: string; base_url?: string; key?: string }>
  fallback: Record<number, string>
  rules: RuleHints
  contextCap?: string
  mydayAt?: string
  tools: ToolHints
  form?: string
}

export function hasHints(h: Hints): boolean {
  return Object.keys(h.providers).length > 0 || Object.keys(h.fallback).length > 0 || Object.keys(h.rules).length > 0 || !!h.contextCap || !!h.mydayAt || Object.keys(h.tools).length > 0 || !!h.form
}

function isHttpURL(s: string): boolean {
  try {
    const u = new URL(s)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== ''
  } catch {
    return false
  }
}

/** Problems to fix before saving, per field (ids of rows as keys); storedTools: the tools'
 * keys as Settings shows them (masked; '' none stored). */
export function validate(f: SettingsForm, storedTools: Record<string, string> = {}): Hints {
  const h: Hints = { providers: {}, fallback: {}, rules: validateRules(f.rules), tools: validateTools(f.tools, storedTools) }
  const hint = (id: number, field: 'name' | 'base_url' | 'key', msg: string) => {
    h.providers[id] = { ...h.providers[id], [field]: msg }
  }
  if (f.providers.length === 0) h.form = t('check.needProvider')
  const seen = new Set<string>()
  for (const p of f.providers) {
    const name = p.name.trim()
    if (!name) hint(p.id, 'name', t('check.nameRequired'))
    else if (/[\s/]/.test(name)) hint(p.id, 'name', t('check.nameChars'))
    else if (seen.has(name)) hint(p.id, 'name', t('check.nameTaken'))
    seen.add(name)
    const url = p.base_url.trim()
    if (url && !isHttpURL(url)) hint(p.id, 'base_url', t('check.notHttp', { example: defaultBaseURL(p.type) }))
  }
  f.fallback.forEach((x) => {
    if (!x.ref.trim()) h.fallback[x.id] = t('check.fallbackEmpty')
  })
  const cap = parseCap(f.contextCap)
  if (Number.isNaN(cap)) h.contextCap = t('check.capWhole')
  else if (cap > 0 && cap < MIN_CONTEXT_CAP) h.contextCap = t('check.capMin', { n: MIN_CONTEXT_CAP.toLocaleString('en-US') })
  const at = checkTime(f.mydayAt)
  if (at) h.mydayAt = at
  return h
}

/** Moves list[i] by delta (−1 up, +1 down); the same list when it cannot move. */
export function move<T>(list: T[], i: number, delta: number): T[] {
  const j = i + delta
  if (i < 0 || i >= list.length || j < 0 || j >= list.length) return list
  const out = [...list]
  const [x] = out.splice(i, 1)
  out.splice(j, 0, x!)
  return out
}

/** A renamed provider leaves its keys under the old name: say so. */
export function renameNote(p: ProviderRow, storedKeys: Record<string, number>): string {
  if (p.saved && p.name.trim() !== p.saved && storedKeys[p.saved] && p.keyAction !== 'replace') {
    return t('keys.renamed', { name: p.saved })
  }
  return ''
}
