// The Settings form of a chat bridge (docs/BRIDGES.md): what is typed, checked before it is
// sent to BridgeService.Save (which checks it again: config.File.SaveBridge), and turned into
// the bridge's settings. The platform's own fields come from BridgeService.Platforms, so a
// platform added in Go gets its fields here without a change.
import { t } from './i18n/index.svelte'
import type { BridgeConfig, BridgeInfo } from './platforms'

/** A platform setting the form asks for (platforms.Field): key is its name in the settings. */
export interface PlatformField {
  key: string
  label: string
  placeholder?: string
  hint?: string
  required?: boolean
}

/** What the form shows for a platform (platforms.Form). */
export interface PlatformForm {
  platform: string
  label: string
  fields: PlatformField[]
  token: string
  token_hint: string
  allowed_hint: string
}

/** The tool families a bridge's conversations get only when turned on for it. */
export const bridgeTools = ['web', 'browser', 'desktop'] as const

/** The approval modes a bridge's conversations may have, as the form names them (in the UI's language). */
export const approveModes = [
  { mode: 'ask', get label() { return t('bridgeform.askInChat') } },
  { mode: 'safe', get label() { return t('bridgeform.denyAsking') } },
  { mode: 'never', get label() { return t('bridgeform.readsOnly') } },
] as const

/** The form's state: text as typed. */
export interface BridgeDraft {
  name: string
  platform: string
  on: boolean
  fields: Record<string, string>
  allowed: string // ids separated by commas, spaces or lines
  workspace: string
  approve: string
  tools: string[]
  token: string // "" keeps the one kept
}

/** emptyDraft is a new bridge's form: off, asking in the chat, no tools. */
export function emptyDraft(platform = ''): BridgeDraft {
  return { name: '', platform, on: false, fields: {}, allowed: '', workspace: '', approve: 'ask', tools: [], token: '' }
}

/** draftOf is the form of a bridge already set up (its token never comes back: "" keeps it). */
export function draftOf(b: BridgeInfo): BridgeDraft {
  const c: BridgeConfig = b.config ?? { platform: b.platform, on: b.on, allowed: b.allowed }
  const fields: Record<string, string> = {}
  for (const [k, v] of Object.entries(c)) if (typeof v === 'string' && !common.has(k)) fields[k] = v
  return {
    name: b.name,
    platform: c.platform,
    on: !!c.on,
    fields,
    allowed: (c.allowed ?? []).join(', '),
    workspace: c.workspace ?? '',
    approve: c.approve || 'ask',
    tools: [...(c.tools ?? [])],
    token: '',
  }
}

// The settings every bridge has; the rest are its platform's.
const common = new Set(['platform', 'on', 'allowed', 'workspace', 'approve', 'tools'])

/** parseAllowed splits the allowed user ids as typed: commas, spaces or lines between them. */
export function parseAllowed(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))]
}

/** configOf is the draft as the bridge's settings; form says which fields are the platform's. */
export function configOf(d: BridgeDraft, form: PlatformForm | undefined): BridgeConfig {
  const c: BridgeConfig = { platform: d.platform, on: d.on, allowed: parseAllowed(d.allowed), approve: d.approve, tools: [...d.tools] }
  if (d.workspace.trim()) c.workspace = d.workspace.trim()
  for (const f of form?.fields ?? []) {
    const v = (d.fields[f.key] ?? '').trim()
    if (v) c[f.key] = v
  }
  return c
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

/** checkDraft says what is wrong with the form before it is saved ("" : nothing): a name (new
 * and unused when adding), a platform, and to be on, allowed users and the platform's required
 * fields. taken are the names of the bridges already set up; adding tells a new bridge. */
export function checkDraft(d: BridgeDraft, form: PlatformForm | undefined, taken: string[], adding: boolean): string {
  const name = d.name.trim()
  if (!name) return t('bridgeform.needName')
  if (!namePattern.test(name)) return t('bridgeform.badName', { name })
  if (adding && taken.includes(name)) return t('bridgeform.nameTaken', { name })
  if (!d.platform) return t('bridgeform.choosePlatform')
  if (!form) return t('bridgeform.noPlatform', { platform: d.platform })
  if (d.on) {
    const why = whyNotOn(d, form)
    if (why) return why
  }
  return ''
}

/** whyNotOn says why the bridge cannot be turned on as it stands ("" : it can). */
export function whyNotOn(d: BridgeDraft, form: PlatformForm | undefined): string {
  if (parseAllowed(d.allowed).length === 0) return t('bridgeform.needAllowed')
  for (const f of form?.fields ?? []) {
    if (f.required && !(d.fields[f.key] ?? '').trim()) return t('bridgeform.fillIn', { label: f.label })
  }
  return ''
}
