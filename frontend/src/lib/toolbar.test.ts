import { describe, expect, it } from 'vitest'
import { enhanceChip, failedServers, withMode, groups, nextIndex, offerChip, searchChip, thinkingChoice, toolsChip } from './toolbar'
import type { ToolFamilyState } from './types'

const fam = (family: string, on: boolean, blocked?: string): ToolFamilyState => ({ family, label: family, on, blocked })

describe('toolbar chips', () => {
  it('counts the families on over those the conversation can have', () => {
    const c = toolsChip([fam('coding', true), fam('web', false, 'Web access is off in Settings'), fam('browser', false), fam('swarm', true), fam('mcp:files', true)])
    expect(c.label).toBe('Tools 3/5')
    expect(c.title).toBe('Off here: Browser. Off in Settings: Web search') // built-in families named by the UI (familyLabel)
    // Regression (issue 36): "Tools 6/6 — Every tool family is on" with web search and desktop off in Settings.
    const all = toolsChip([fam('coding', true), fam('web', false, 'Web access is off in Settings'), fam('desktop', false, 'Desktop control is off in Settings')])
    expect(all).toMatchObject({ label: 'Tools 1/3', title: 'Off in Settings: Web search, Desktop' })
    // A failed MCP server is not counted as on, and is named.
    const failed = failedServers([{ name: 'files', status: 'failed', error: 'exit status 1' }, { name: 'ok', status: 'connected' }])
    expect(failed).toEqual({ 'mcp:files': 'exit status 1' })
    expect(toolsChip([fam('coding', true), fam('mcp:files', true)], failed)).toMatchObject({ label: 'Tools 1/2', title: 'Not running: mcp:files' })
    expect(toolsChip([fam('coding', true)]).title).toBe('Every tool family is on')
    expect(toolsChip([]).label).toBe('Tools 0/0')
  })

  it('Search follows the web family; a Settings block wins and cannot be changed', () => {
    expect(searchChip([fam('web', true)])).toMatchObject({ on: true, disabled: false })
    expect(searchChip([fam('web', false)])).toMatchObject({ on: false, disabled: false })
    expect(searchChip([fam('web', true, 'Web access is off in Settings')])).toEqual({ on: false, disabled: true, title: 'Web access is off in Settings' })
    expect(searchChip([])).toMatchObject({ on: false, disabled: true })
  })

  it('Enhance names what differs from the defaults', () => {
    expect(enhanceChip({ translate: false, recall: true, recallEverywhere: true })).toBe('Enhance')
    expect(enhanceChip({ translate: true, recall: true, recallEverywhere: true })).toBe('Enhance · Translate')
    expect(enhanceChip({ translate: false, recall: true, recallEverywhere: false })).toBe('Enhance · No recall')
    expect(enhanceChip({ translate: true, recall: false, recallEverywhere: true })).toBe('Enhance · Translate · No recall')
  })

  it('groups MCP servers apart', () => {
    const g = groups([fam('coding', true), fam('mcp:a', true), fam('memory', false), fam('mcp:b', false)])
    expect(g.builtin.map((f) => f.family)).toEqual(['coding', 'memory'])
    expect(g.mcp.map((f) => f.family)).toEqual(['mcp:a', 'mcp:b'])
  })

  it('moves through a menu with the arrow keys, Home and End', () => {
    expect(nextIndex('ArrowDown', 0, 3)).toBe(1)
    expect(nextIndex('ArrowDown', 2, 3)).toBe(0)
    expect(nextIndex('ArrowUp', 0, 3)).toBe(2)
    expect(nextIndex('Home', 2, 3)).toBe(0)
    expect(nextIndex('End', 0, 3)).toBe(2)
    expect(nextIndex('Enter', 0, 3)).toBeNull()
    expect(nextIndex('ArrowDown', 0, 0)).toBeNull()
  })
})

describe('the Enhance menu thinking level', () => {
  it('offers the levels only for a model that thinks', () => {
    const none = thinkingChoice({ thinking: 'high', settingsThinking: 'low', modelThinks: false })
    expect(none.offered).toBe(false)
    expect(none.note).toBe('model has no thinking')
    const c = thinkingChoice({ thinking: '', settingsThinking: 'medium', modelThinks: true })
    expect(c.offered).toBe(true)
    expect(c.value).toBe('')
    expect(c.options.map((o) => o.value)).toEqual(['', 'off', 'low', 'medium', 'high'])
    expect(c.options[0].label).toBe('As in Settings (medium)')
    expect(c.note).toBe('Reasoning effort: medium')
  })

  it("lets the conversation's level win over the settings'", () => {
    expect(thinkingChoice({ thinking: 'off', settingsThinking: 'high', modelThinks: true }).note).toBe('The model answers without reasoning first')
    expect(thinkingChoice({ thinking: 'high', modelThinks: true }).note).toBe('Reasoning effort: high')
    expect(thinkingChoice({ thinking: '', modelThinks: true }).options[0].label).toBe('As in Settings (off)')
    expect(enhanceChip({ translate: false, recall: true, recallEverywhere: true, thinking: 'high' })).toBe('Enhance · Thinking high')
  })
  it('offers a deferred family on demand or at once, and a family turned on at once', () => {
    const browser: ToolFamilyState = { family: 'browser', label: 'Browser', on: true, deferred: true }
    expect(offerChip(browser)).toMatchObject({ label: 'when needed', next: 'on' })
    expect(offerChip({ ...browser, offered: true })).toMatchObject({ label: 'offered', next: 'auto' })
    expect(offerChip({ ...browser, on: false })).toBeNull()
    expect(offerChip({ ...browser, blocked: 'Web access is off in Settings' })).toBeNull()
    expect(offerChip(fam('coding', true))).toBeNull()
    // A failed MCP server is not "when needed": it cannot run.
    expect(offerChip({ ...browser, family: 'mcp:files' }, { 'mcp:files': 'exit status 1' })).toBeNull()
    // The checkbox: turned on, the family's tools are offered from the next request.
    expect(withMode({ ...browser, on: false }, 'on')).toMatchObject({ on: true, offered: true })
    expect(withMode({ ...browser, offered: true }, 'off')).toMatchObject({ on: false, offered: false })
    expect(withMode({ ...browser, offered: true }, 'auto')).toMatchObject({ on: true, offered: false })
  })
})
