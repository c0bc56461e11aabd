import { describe, expect, it } from 'vitest'
import { fileMatches, mentionAt, mentionMatches, replaceFileMention, replaceMention } from './mention'
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

describe('@file mentions', () => {
  const paths = ['README.md', 'src/parser.go', 'src/parser_test.go', 'internal/lexer/parse_state.go', 'docs/parsing.md', 'cmd/tofu/main.go', 'main.go']
  it('ranks by the file name, then across folders, then shorter paths', () => {
    expect(fileMatches(paths, 'parser')).toEqual(['src/parser.go', 'src/parser_test.go'])
    expect(fileMatches(paths, 'main')).toEqual(['main.go', 'cmd/tofu/main.go'])
    expect(fileMatches(paths, 'src/pa')).toEqual(['src/parser.go', 'src/parser_test.go'])
    expect(fileMatches(paths, 'ilps')[0]).toBe('internal/lexer/parse_state.go')
    expect(fileMatches(paths, 'zzz')).toEqual([])
  })
  it('offers the shallowest files before anything is typed, and at most the limit', () => {
    expect(fileMatches(paths, '', 3)).toEqual(['main.go', 'README.md', 'src/parser.go'])
    expect(fileMatches(paths, 'a', 2)).toHaveLength(2)
  })
  it('puts the path in the text', () => {
    expect(replaceFileMention('look at @pars please', 8, 13, 'src/parser.go')).toEqual({ text: 'look at @src/parser.go  please', cursor: 23 })
  })
})
