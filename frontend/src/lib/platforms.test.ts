import { describe, expect, it } from 'vitest'
import { platformName } from './platforms'

describe('platformName', () => {
  it('names the platforms the bridges speak, and shows an unknown one as stored', () => {
    expect(platformName('matrix')).toBe('Matrix')
    expect(platformName('telegram')).toBe('Telegram')
    expect(platformName('irc')).toBe('irc')
  })
})
