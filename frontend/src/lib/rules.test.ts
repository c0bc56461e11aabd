import { describe, expect, it } from 'vitest'
import { fromRows, newRule, scopeChoices, sourceLabel, toRows, validateRules } from './rules'
import { fromForm, hasHints, toForm, validate } from './settings'
import type { PermissionRule, Settings } from './types'

const rules: PermissionRule[] = [
  { tool: 'run_command', pattern: 'git push*', action: 'deny', scope: 'global', source: 'settings' },
  { tool: 'run_command', pattern: 'touch marker', action: 'allow', scope: '/home/u/proj', source: 'always-allow on 2026-12-01 in session 1a22f31f78c174ca936611c' },
  { tool: 'write', pattern: '~/notes/**', action: 'ask', scope: 'global' },
]

describe('permission rules in Settings', () => {
  it('round-trips the rules Go returned, in order, with where each came from', () => {
    const rows = toRows(rules)
    expect(rows.map((r) => [r.action, r.tool, r.scope])).toEqual([
      ['deny', 'run_command', ''],
      ['allow', 'run_command', '/home/u/proj'],
      ['ask', 'write', ''],
    ])
    expect(fromRows(rows)).toEqual(rules)
    const saved: Settings = { providers: [{ name: 'ollama', type: 'ollama' }], models: {}, permissions: { rules } }
    expect(fromForm(toForm(saved), saved).permissions).toEqual(saved.permissions)
  })

  it('says where a rule came from', () => {
    expect(rules.map((r) => sourceLabel(r.source ?? ''))).toEqual([
      'added in Settings',
      '“Always allow” on 2026-12-01, session 1a22f31f',
      'config.json, by hand',
    ])
  })

  it('a rule added in Settings says so; removing every rule sends an empty list', () => {
    const saved: Settings = { providers: [{ name: 'ollama', type: 'ollama' }], models: {}, permissions: { rules } }
    const f = toForm(saved)
    f.rules = [newRule()]
    f.rules[0]!.pattern = ' npm test* '
    expect(fromForm(f, saved).permissions).toEqual({ rules: [{ tool: 'run_command', pattern: 'npm test*', action: 'ask', scope: 'global', source: 'settings' }] })
    f.rules = []
    expect(fromForm(f, saved).permissions).toEqual({ rules: [] })
    expect(fromForm(toForm({ providers: [], models: {} }))).not.toHaveProperty('permissions')
  })

  it('hints at what Go would refuse', () => {
    const rows = toRows([
      { tool: 'run command', pattern: 'x', action: 'allow' },
      { tool: 'read', pattern: ' ', action: 'deny' },
      { tool: 'write', pattern: '*', action: 'ask', scope: 'src/' },
      { tool: 'network', pattern: '*', action: 'ask', scope: 'C:\\work' },
    ])
    const h = validateRules(rows)
    expect(Object.keys(h[rows[0]!.id]!)).toEqual(['tool'])
    expect(Object.keys(h[rows[1]!.id]!)).toEqual(['pattern'])
    expect(Object.keys(h[rows[2]!.id]!)).toEqual(['scope'])
    expect(h[rows[3]!.id]).toBeUndefined()
    const f = toForm({ providers: [{ name: 'ollama', type: 'ollama' }], models: {} })
    f.rules = rows
    expect(hasHints(validate(f))).toBe(true)
  })

  it('offers the sessions’ workspaces as scopes, once each', () => {
    expect(scopeChoices(['/a', undefined, '/b', '/a'], toRows([{ tool: 'x', pattern: '*', action: 'ask', scope: '/c' }]))).toEqual(['/a', '/b', '/c'])
  })
})
