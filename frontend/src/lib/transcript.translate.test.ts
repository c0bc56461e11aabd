import { describe, expect, it } from 'vitest'
import { emptyTranscript, languageName, project, withEvents, type AssistantItem, type UserItem } from './transcript'
import type { Event, EventType } from './types'

let seq = 0
function ev(type: EventType, data: unknown): Event {
  seq++
  return { session: 's1', seq, time: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, type, data }
}

describe('message_translation', () => {
  it('attaches each translation to the message it translates', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'Pourquoi `go vet` échoue ?' }),
        ev('message_translation', { of: 1, from: 'fr', to: 'en', text: 'Why does `go vet` fail?' }),
        ev('assistant', { text: 'Because of a printf bug.' }),
        ev('message_translation', { of: 3, from: 'en', to: 'fr', text: 'À cause d’un bogue de printf.' }),
      ]),
    )
    expect(items.map((i) => i.kind)).toEqual(['user', 'assistant'])
    const u = items[0] as UserItem
    expect(u.text).toBe('Pourquoi `go vet` échoue ?')
    expect(u.translation).toEqual({ text: 'Why does `go vet` fail?', from: 'fr', to: 'en', fallback: undefined })
    const a = items[1] as AssistantItem
    expect(a.text).toBe('Because of a printf bug.')
    expect(a.translation?.text).toBe('À cause d’un bogue de printf.')
  })

  it('keeps the fallback reason of a translation that failed', () => {
    seq = 0
    const items = project(
      withEvents(emptyTranscript, [
        ev('user', { text: 'Bonjour' }),
        ev('message_translation', { of: 1, from: 'fr', to: 'en', text: 'Bonjour', fallback: 'the translation timed out; the original text was used' }),
      ]),
    )
    expect((items[0] as UserItem).translation?.fallback).toContain('timed out')
  })

  it('names languages in English', () => {
    expect(languageName('fr')).toBe('French')
    expect(languageName('zh')).toBe('Chinese')
  })
})
