// Pure helpers of the permission rules in Settings: PermissionRule ↔ form rows, the hints shown
// before saving (the same checks as backend/config's PermissionRule.validate), and where each
// rule came from, in words.
import { t, type Key } from './i18n/index.svelte'
import type { PermissionRule, RuleAction } from './types'

export const RULE_ACTIONS: { value: RuleAction; label: Key }[] = [
  { value: 'allow', label: 'rules.allow' },
  { value: 'ask', label: 'rules.ask' },
  { value: 'deny', label: 'rules.deny' },
]

/** Tools and access kinds a rule can be for (suggestions; any tool name is accepted). */
export const RULE_TOOLS = ['run_command', 'edit_files', 'write_file', 'read_files', 'read', 'write', 'exec', 'network', 'mcp']

export type RuleRow = {
  /** Stable id for keyed lists (not saved). */
  id: number
  tool: string
  pattern: string
  action: RuleAction
  /** A workspace's absolute path; empty is every workspace ("global"). */
  scope: string
  /** Where the rule came from, kept as it was ("settings" for a rule added here). */
  source: string
}

let nextId = 1

const asAction = (a: unknown): RuleAction => (a === 'allow' || a === 'deny' ? a : 'ask')

export function toRows(rules: PermissionRule[] | null | undefined): RuleRow[] {
  return (rules ?? []).map((r) => ({
    id: nextId++,
    tool: r.tool ?? '',
    pattern: r.pattern ?? '',
    action: asAction(r.action),
    scope: !r.scope || r.scope === 'global' ? '' : r.scope,
    source: r.source ?? '',
  }))
}

/** A new rule typed in Settings: ask about every command, everywhere, until edited. */
export function newRule(scope = ''): RuleRow {
  return { id: nextId++, tool: 'run_command', pattern: '', action: 'ask', scope, source: 'settings' }
}

export function fromRows(rows: RuleRow[]): PermissionRule[] {
  return rows.map((r) => {
    const out: PermissionRule = { tool: r.tool.trim(), pattern: r.pattern.trim(), action: r.action, scope: r.scope.trim() || 'global' }
    if (r.source) out.source = r.source
    return out
  })
}

/** Where a rule came from, for the list. */
export function sourceLabel(source: string): string {
  if (!source) return t('rules.byHand')
  if (source === 'settings') return t('rules.inSettings')
  // "always-allow on 2026-12-01 in session 1a22f31f…": a session id is long and says little.
  const m = /^always-allow on (\S+) in session (\S+)$/.exec(source)
  if (m) return t('rules.alwaysAllowOn', { date: m[1]!, session: m[2]!.slice(0, 8) })
  return source
}

export type RuleHints = Record<number, { tool?: string; pattern?: string; scope?: string }>

function isAbsolute(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p)
}

/** Problems to fix before saving, by row id. */
export function validateRules(rows: RuleRow[]): RuleHints {
  const h: RuleHints = {}
  const hint = (id: number, field: 'tool' | 'pattern' | 'scope', msg: string) => {
    h[id] = { ...h[id], [field]: msg }
  }
  for (const r of rows) {
    const tool = r.tool.trim()
    if (!tool || /\s/.test(tool)) hint(r.id, 'tool', t('rules.toolHint'))
    if (!r.pattern.trim()) hint(r.id, 'pattern', t('rules.patternHint'))
    const scope = r.scope.trim()
    if (scope && scope !== 'global' && !isAbsolute(scope)) hint(r.id, 'scope', t('rules.scopeHint'))
  }
  return h
}

/** The workspaces a rule could be scoped to: those of the sessions, then any already used. */
export function scopeChoices(workspaces: (string | undefined)[], rows: RuleRow[]): string[] {
  const out: string[] = []
  for (const w of [...workspaces, ...rows.map((r) => r.scope)]) if (w && !out.includes(w)) out.push(w)
  return out
}
