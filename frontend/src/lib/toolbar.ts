// The composer's toolbar at a glance: what each chip says from the conversation's state. Pure,
// so the rules (what counts as a tool family that is on, when Search can be changed) are
// tested without a page.
import type { ToolFamilyState } from './types'

export const WEB_FAMILY = 'web'

/** Families that cannot run, by family: an MCP server that failed to start, with its error. */
export type Failed = Record<string, string>

/** The families whose MCP server failed, from Settings' server list (McpServer.status). */
export function failedServers(servers: { name: string; status: string; error?: string }[]): Failed {
  const out: Failed = {}
  for (const s of servers) if (s.status === 'failed') out[`mcp:${s.name}`] = s.error || 'The server failed to start'
  return out
}

/** "Tools 4/8": families that can run in this conversation over all of them; the title names
 * what is off here, off in Settings and not running (regression, issue 36: "Tools 6/6 — every
 * tool family is on" while web search and desktop were off in Settings). */
export function toolsChip(families: ToolFamilyState[], failed: Failed = {}): { label: string; on: number; total: number; title: string } {
  const on = families.filter((f) => f.on && !f.blocked && !failed[f.family]).length
  const off = families.filter((f) => !f.on && !f.blocked).map((f) => f.label)
  const blocked = families.filter((f) => f.blocked).map((f) => f.label)
  const down = families.filter((f) => f.on && !f.blocked && failed[f.family]).map((f) => f.label)
  const parts: string[] = []
  if (off.length) parts.push(`Off here: ${off.join(', ')}`)
  if (blocked.length) parts.push(`Off in Settings: ${blocked.join(', ')}`)
  if (down.length) parts.push(`Not running: ${down.join(', ')}`)
  return { label: `Tools ${on}/${families.length}`, on, total: families.length, title: parts.length ? parts.join('. ') : 'Every tool family is on' }
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
    ? { label: 'offered', next: 'auto', title: 'Offered in every request; click to leave them to tool_search' }
    : { label: 'when needed', next: 'on', title: 'Left to tool_search; click to offer them from the next request' }
}

/** The Search chip: web search in this conversation (the web family), and whether it can change. */
export function searchChip(families: ToolFamilyState[]): { on: boolean; disabled: boolean; title: string } {
  const web = families.find((f) => f.family === WEB_FAMILY)
  if (!web) return { on: false, disabled: true, title: 'Web search needs a workspace (an agent conversation)' }
  if (web.blocked) return { on: false, disabled: true, title: web.blocked }
  return { on: web.on, disabled: false, title: web.on ? 'Web search and page reading are offered (click to turn off here)' : 'Web search is off in this conversation' }
}

/** The Enhance chip's words: what is on beyond the defaults. */
export function enhanceChip(s: { translate: boolean; recall: boolean; recallEverywhere: boolean; thinking?: string }): string {
  const parts = ['Enhance']
  if (s.translate) parts.push('Translate')
  if (!(s.recall && s.recallEverywhere)) parts.push('No recall')
  if (s.thinking) parts.push(`Thinking ${s.thinking}`)
  return parts.join(' · ')
}

export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const

/** The Enhance menu's thinking choice: the conversation's level ("" follows the settings'),
 * offered only for a model that can think. */
export function thinkingChoice(s: { thinking: string; settingsThinking?: string; modelThinks: boolean }): {
  offered: boolean
  value: string
  options: { value: string; label: string }[]
  note: string
} {
  const settings = s.settingsThinking || 'off'
  const options = [{ value: '', label: `As in Settings (${settings})` }, ...THINKING_LEVELS.map((l) => ({ value: l, label: l }))]
  if (!s.modelThinks) return { offered: false, value: s.thinking, options, note: 'model has no thinking' }
  const effective = s.thinking || settings
  return { offered: true, value: s.thinking, options, note: effective === 'off' ? 'The model answers without reasoning first' : `Reasoning effort: ${effective}` }
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
