// The composer's toolbar at a glance: what each chip says from the conversation's state. Pure,
// so the rules (what counts as a tool family that is on, when Search can be changed) are
// tested without a page.
import { t, type Key } from './i18n/index.svelte'
import type { ToolFamilyState } from './types'

export const WEB_FAMILY = 'web'

// The built-in families' names and the settings' reasons (the backend sends them in English);
// an MCP server's family keeps its server's name.
const FAMILY_NAMES: Record<string, Key> = {
  coding: 'family.coding',
  web: 'family.web',
  browser: 'family.browser',
  desktop: 'family.desktop',
  swarm: 'family.swarm',
  memory: 'family.memory',
}
const BLOCKED: Record<string, Key> = {
  'Web access is off in Settings': 'family.webOff',
  'Desktop control is off in Settings': 'family.desktopOff',
}

/** A family's name in the UI's language. */
export function familyLabel(f: { family: string; label: string }): string {
  const key = FAMILY_NAMES[f.family]
  return key ? t(key) : f.label
}

/** Why a family is off everywhere, in the UI's language ("" when it is not). */
export function blockedText(blocked: string | undefined): string {
  if (!blocked) return ''
  const key = BLOCKED[blocked]
  return key ? t(key) : blocked
}

/** Families that cannot run, by family: an MCP server that failed to start, with its error. */
export type Failed = Record<string, string>

/** The families whose MCP server failed, from Settings' server list (McpServer.status). */
export function failedServers(servers: { name: string; status: string; error?: string }[]): Failed {
  const out: Failed = {}
  for (const s of servers) if (s.status === 'failed') out[`mcp:${s.name}`] = s.error || t('toolbar.serverFailed')
  return out
}

/** "Tools 4/8": families that can run in this conversation over all of them; the title names
 * what is off here, off in Settings and not running (regression, issue 36: "Tools 6/6 — every
 * tool family is on" while web search and desktop were off in Settings). */
export function toolsChip(families: ToolFamilyState[], failed: Failed = {}): { label: string; on: number; total: number; title: string } {
  const on = families.filter((f) => f.on && !f.blocked && !failed[f.family]).length
  const off = families.filter((f) => !f.on && !f.blocked).map(familyLabel)
  const blocked = families.filter((f) => f.blocked).map(familyLabel)
  const down = families.filter((f) => f.on && !f.blocked && failed[f.family]).map(familyLabel)
  const parts: string[] = []
  const list = (names: string[]) => names.join(t('toolbar.listSep'))
  if (off.length) parts.push(t('toolbar.offHere', { list: list(off) }))
  if (blocked.length) parts.push(t('toolbar.offInSettings', { list: list(blocked) }))
  if (down.length) parts.push(t('toolbar.notRunning', { list: list(down) }))
  return { label: t('toolbar.tools', { on, total: families.length }), on, total: families.length, title: parts.length ? parts.join(t('toolbar.partSep')) : t('toolbar.allOn') }
}

/** A family's mode in a conversation (SessionService.SetToolFamilyMode). */
export type FamilyMode = 'off' | 'auto' | 'on'

/** A family's state once set to mode: on, the user asked for it, so it is offered at once. */
export function withMode(f: ToolFamilyState, mode: FamilyMode): ToolFamilyState {
  return { ...f, on: mode !== 'off', offered: mode === 'on' }
}

/** The small switch beside a deferred family that is on: whether its tools wait for
 * tool_search ("when needed") or are offered from the next request; null for the others. */
export function offerChip(f: ToolFamilyState, failed: Failed = {}): { label: string; next: FamilyMode; title: string } | null {
  if (!f.deferred || !f.on || f.blocked || failed[f.family]) return null
  return f.offered
    ? { label: t('toolbar.offered'), next: 'auto', title: t('toolbar.offeredTitle') }
    : { label: t('toolbar.whenNeeded'), next: 'on', title: t('toolbar.whenNeededTitle') }
}

/** The Search chip: web search in this conversation (the web family), and whether it can change. */
export function searchChip(families: ToolFamilyState[]): { on: boolean; disabled: boolean; title: string } {
  const web = families.find((f) => f.family === WEB_FAMILY)
  if (!web) return { on: false, disabled: true, title: t('toolbar.searchNeedsWorkspace') }
  if (web.blocked) return { on: false, disabled: true, title: blockedText(web.blocked) }
  return { on: web.on, disabled: false, title: web.on ? t('toolbar.searchOn') : t('toolbar.searchOff') }
}

/** The Enhance chip's words: what is on beyond the defaults. */
export function enhanceChip(s: { translate: boolean; recall: boolean; recallEverywhere: boolean; thinking?: string }): string {
  const parts = [t('enhance.enhance')]
  if (s.translate) parts.push(t('toolbar.translate'))
  if (!(s.recall && s.recallEverywhere)) parts.push(t('toolbar.noRecall'))
  if (s.thinking) parts.push(t('toolbar.thinkingLevel', { level: thinkingWord(s.thinking) }))
  return parts.join(' · ')
}

export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const

const THINKING_WORDS: Record<string, Key> = { off: 'toolbar.levelOff', low: 'toolbar.levelLow', medium: 'toolbar.levelMedium', high: 'toolbar.levelHigh' }

/** A thinking level's word in the UI's language. */
export function thinkingWord(level: string): string {
  const key = THINKING_WORDS[level]
  return key ? t(key) : level
}

/** A thinking level as a choice's label: "Off", "Low"… (capitalised where the script has case). */
export function thinkingLabel(level: string): string {
  const w = thinkingWord(level)
  return w.charAt(0).toUpperCase() + w.slice(1)
}

/** The Enhance menu's thinking choice: the conversation's level ("" follows the settings'),
 * offered only for a model that can think. */
export function thinkingChoice(s: { thinking: string; settingsThinking?: string; modelThinks: boolean }): {
  offered: boolean
  value: string
  options: { value: string; label: string }[]
  note: string
} {
  const settings = s.settingsThinking || 'off'
  const options = [{ value: '', label: t('toolbar.asInSettings', { level: thinkingWord(settings) }) }, ...THINKING_LEVELS.map((l) => ({ value: l, label: thinkingWord(l) }))]
  if (!s.modelThinks) return { offered: false, value: s.thinking, options, note: t('toolbar.noThinking') }
  const effective = s.thinking || settings
  return { offered: true, value: s.thinking, options, note: effective === 'off' ? t('toolbar.answersDirectly') : t('toolbar.effort', { level: thinkingWord(effective) }) }
}

/** Families in the menu's groups: the built-in ones, then the MCP servers. */
export function groups(families: ToolFamilyState[]): { builtin: ToolFamilyState[]; mcp: ToolFamilyState[] } {
  return {
    builtin: families.filter((f) => !f.family.startsWith('mcp:')),
    mcp: families.filter((f) => f.family.startsWith('mcp:')),
  }
}

/** Moves focus within a menu's items by a key: ArrowDown/Up wrap, Home/End go to the ends;
 * null for any other key. */
export function nextIndex(key: string, current: number, count: number): number | null {
  if (count <= 0) return null
  switch (key) {
    case 'ArrowDown':
      return (current + 1 + count) % count
    case 'ArrowUp':
      return (current - 1 + count) % count
    case 'Home':
      return 0
    case 'End':
      return count - 1
  }
  return null
}
