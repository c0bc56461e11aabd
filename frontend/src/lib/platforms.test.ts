// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { loadCatalogue, setLocale } from './i18n/index.svelte'
import { bridgeStatus, platformName, type BridgeInfo } from './platforms'

describe('platformName', () => {
  it('names the platforms the bridges speak, and shows an unknown one as stored', () => {
    expect(platformName('matrix')).toBe('Matrix')
    expect(platformName('telegram')).toBe('Telegram')
    expect(platformName('irc')).toBe('irc')
  })
})

describe('bridgeStatus', () => {
  const base: BridgeInfo = { name: 'phone', platform: 'telegram', on: true, has_token: true, allowed: ['1'], status: { connected: false, running: 0 } }
  it('says off, a missing token, a failed start, connected and offline with the wait', () => {
    expect(bridgeStatus({ ...base, on: false, error: 'stale' }, 0)).toEqual({ kind: 'off', text: 'Off' })
    const noToken = bridgeStatus({ ...base, has_token: false }, 0)
    expect(noToken.kind).toBe('no-token')
    expect(noToken.text).toContain('no token is kept: set it with Edit')
    expect(bridgeStatus({ ...base, error: 'bad token' }, 0)).toEqual({ kind: 'failed', text: 'Could not start: bad token' })
    expect(bridgeStatus({ ...base, status: { connected: true, running: 1 } }, 0)).toEqual({ kind: 'connected', text: 'Connected · 1 answering' })
    expect(bridgeStatus({ ...base, status: { connected: true, running: 0 } }, 0).text).toBe('Connected')
    expect(bridgeStatus(base, 0)).toEqual({ kind: 'connecting', text: 'Connecting…' })
  })

  it('counts the offline wait down to the next try, never below zero', () => {
    const now = Date.parse('2026-12-06T14:00:00Z')
    const offline = { ...base, status: { connected: false, running: 0, error: 'no network', retry_at: '2026-12-06T14:00:08Z' } }
    expect(bridgeStatus(offline, now)).toEqual({ kind: 'offline', text: 'Offline: no network · trying again in 8 s' })
    expect(bridgeStatus(offline, now + 5_000).text).toBe('Offline: no network · trying again in 3 s')
    expect(bridgeStatus(offline, now + 8_000).text).toBe('Offline: no network · trying again now')
    expect(bridgeStatus(offline, now + 60_000).text).toBe('Offline: no network · trying again now')
  })

  it('says the state in the UI language', async () => {
    const now = Date.parse('2026-12-06T14:00:00Z')
    const offline = { ...base, status: { connected: false, running: 0, error: 'no network', retry_at: '2026-12-06T14:00:08Z' } }
    setLocale('zh')
    await loadCatalogue('zh')
    expect(bridgeStatus(offline, now).text).toBe('离线：no network · 8 秒后重试')
    expect(bridgeStatus({ ...base, status: { connected: true, running: 2 } }, 0).text).toBe('已连接 · 正在回复 2 条')
    setLocale('ja')
    await loadCatalogue('ja')
    expect(bridgeStatus({ ...base, on: false }, 0).text).toBe('オフ')
    expect(bridgeStatus(base, 0).text).toBe('接続中…')
    setLocale('system')
  })
})
