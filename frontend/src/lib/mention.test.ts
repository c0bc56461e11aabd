import { describe, expect, it } from 'vitest'
import { mentionAt, mentionMatches, replaceMention } from './mention'
import type { SessionInfo } from './types'

const s = (id: string, title: string, extra: Partial<SessionInfo> = {}) => ({ id, title, created: '', updated: '', events: 1, ...extra }) as SessionInfo

describe('@-mentions', () => {
  it('finds the mention before the cursor', () => {
    expect(mentionAt('see @quo', 8)).toEqual({ start: 4, query: 'quo' })
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' })
    expect(mentionAt('see @tide tables', 16)).toEqual({ start: 4, query: 'tide tables' })
    expect(mentionAt('mail me@example.com', 19)).toBeNull()
    expect(mentionAt('see @quo\nnext', 13)).toBeNull()
    expect(mentionAt('see @ x', 7)).toBeNull()
    expect(mentionAt('no mention', 10)).toBeNull()
  })

  it('offers other conversations whose title matches', () => {
    const list = [s('1', 'Quokka notes'), s('2', 'Tides'), s('3', 'quokka paper', { paper: 'p' }), s('4', 'Quokkas again'), s('5', 'quokka eval', { eval: { suite: 'x', instance: 'y' } })]
    expect(mentionMatches(list, 'QUOK', '4').map((x) => x.id)).toEqual(['1'])
    expect(mentionMatches(list, '', null).map((x) => x.id)).toEqual(['1', '2', '4'])
  })

  it('replaces the mention with the reference', () => {
    expect(replaceMention('see @quo and', 4, 8, '<ref/>')).toEqual({ text: 'see <ref/>\n\n and', cursor: 12 })
  })
})
