// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'

// The reader's translation target is the user's language, but working it out loads ICU's
// language names (Intl.DisplayNames, ~40 ms): the window's start-up must not pay for it.
describe('the reader translation language', () => {
  const real = Intl.DisplayNames
  const intl = Intl as { DisplayNames: typeof Intl.DisplayNames } // read-only in the type, writable in fact
  afterEach(() => {
    intl.DisplayNames = real
    vi.resetModules()
  })

  it('is not worked out at start-up, then is the user language until the user types another', async () => {
    let made = 0
    intl.DisplayNames = class extends real {
      constructor(...args: ConstructorParameters<typeof real>) {
        made++
        super(...args)
      }
    } as typeof real
    const { reader } = await import('./reader.svelte')
    expect(made).toBe(0)
    expect(reader.lang).not.toBe('')
    expect(made).toBe(1)
    void reader.lang
    expect(made).toBe(1)
    reader.lang = 'German'
    expect(reader.lang).toBe('German')
    reader.lang = ''
    expect(reader.lang).toBe('')
  }, 60_000) // the reader's module graph (the app state, the bridge) is slow to transform on a busy machine
})
