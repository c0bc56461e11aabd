import { describe, expect, it } from 'vitest'
import { bridgeState, platformName } from './platforms'

describe('platformName', () => {
  it('names the platforms the bridges speak, and shows an unknown one as stored', () => {
    expect(platformName('matrix')).toBe('Matrix')
    expect(platformName('telegram')).toBe('Telegram')
    expect(platformName('irc')).toBe('irc')
  })
})

describe('bridgeState', () => {
  const base = { name: 'phone', platform: 'telegram', on: true, has_token: true, allowed: ['1'], status: { connected: false, running: 0 } }
  it('says off, a missing token, a failed start, connected and offline with the wait', () => {
    expect(bridgeState({ ...base, on: false }, 0)).toBe('Off')
    expect(bridgeState({ ...base, has_token: false }, 0)).toContain('tofu bridge token phone')
    expect(bridgeState({ ...base, error: 'bad token' }, 0)).toBe('Could not start: bad token')
    expect(bridgeState({ ...base, status: { connected: true, running: 1 } }, 0)).toBe('Connected · 1 answering')
    const now = Date.parse('2026-12-06T14:00:00Z')
    expect(bridgeState({ ...base, status: { connected: false, running: 0, error: 'no network', retry_at: '2026-12-06T14:00:08Z' } }, now)).toBe(
      'Offline: no network · trying again in 8 s',
    )
    expect(bridgeState(base, 0)).toBe('Connecting…')
  })
})
