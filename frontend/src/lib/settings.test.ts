import { describe, expect, it } from 'vitest'
import {
  connectionRequest,
  connectionText,
  defaultBaseURL,
  fromForm,
  hasHints,
  hasKeyEdits,
  keyChanges,
  keyStatus,
  keysStoreLabel,
  move,
  newFallback,
  newProvider,
  parseCap,
  parseKeys,
  renameNote,
  toForm,
  validate,
} from './settings'
import type { Settings } from './types'

const saved: Settings = {
  providers: [
    { name: 'ollama', type: 'ollama' },
    { name: 'anthropic', type: 'anthropic', base_url: 'https://api.anthropic.com' },
  ],
  models: { main: 'qwen3:8b', translation: 'anthropic/claude-haiku' },
  fallback: ['anthropic/claude-sonnet', 'llama3'],
  thinking: 'medium',
  context_window_cap: 16384,
  api_keys: { ollama: 0, anthropic: 3 },
  config_path: '/home/u/.config/tofu/config.json',
  keys_store: 'keyring',
}

describe('form ↔ Settings', () => {
  it('round-trips what Go returned', () => {
    const f = toForm(saved)
    expect(f.providers.map((p) => [p.name, p.type, p.base_url, p.saved, p.keyAction])).toEqual([
      ['ollama', 'ollama', '', 'ollama', 'keep'],
      ['anthropic', 'anthropic', 'https://api.anthropic.com', 'anthropic', 'keep'],
    ])
    expect(f).toMatchObject({ main: 'qwen3:8b', cheap: '', translation: 'anthropic/claude-haiku', thinking: 'medium', contextCap: '16384' })
    expect(f.fallback.map((x) => x.ref)).toEqual(['anthropic/claude-sonnet', 'llama3'])

    const back = fromForm(f, saved)
    expect(back).toEqual(saved)
    // Web access: on when ticked, off again when unticked (never dropped).
    expect(fromForm({ ...f, webAccess: true }, saved).web_access).toBe(true)
    expect(fromForm({ ...f, webAccess: false }, { ...saved, web_access: true }).web_access).toBe(false)
    expect(fromForm({ ...f, unconfined: true }, saved).commands).toBe('unconfined')
    expect('commands' in fromForm({ ...f, unconfined: false }, { ...saved, commands: 'unconfined' })).toBe(false)
    expect(toForm({ ...saved, commands: 'unconfined' }).unconfined).toBe(true)
    expect(fromForm({ ...f, browserVisible: true }, saved).browser_visible).toBe(true)
    expect('browser_visible' in fromForm({ ...f, browserVisible: false }, saved)).toBe(false)
    expect(fromForm({ ...f, desktop: true }, saved).desktop).toBe(true)
    expect('desktop' in fromForm({ ...f, desktop: false }, saved)).toBe(false)
    expect(toForm(saved).memoryRecall).toBe(true)
    expect(fromForm(f, saved).memory_recall_off).toBeUndefined()
    expect(fromForm({ ...f, memoryRecall: false }, saved).memory_recall_off).toBe(true)
    expect(toForm({ ...saved, memory_recall_off: true }).memoryRecall).toBe(false)
  })

  it('keeps what the form has no control for, and My Day\'s time', () => {
    const hand: Settings = { ...saved, prices: { 'openai/gpt-5': { input: 1, output: 2 } }, revision: 'r1', myday_at: '18:00' } as Settings
    const f = toForm(hand)
    expect(f.mydayAt).toBe('18:00')
    const back = fromForm(f, hand) as Settings & { prices?: unknown }
    expect(back.prices).toEqual({ 'openai/gpt-5': { input: 1, output: 2 } })
    expect(back.revision).toBe('r1')
    expect(back.myday_at).toBe('18:00')
    expect('myday_at' in fromForm({ ...f, mydayAt: ' ' }, hand)).toBe(false)
    expect(validate({ ...f, mydayAt: '25:00' }).mydayAt).toContain('18:30')
    expect(hasHints(validate({ ...f, mydayAt: '07:30' }))).toBe(false)
  })

  it('trims, drops empty optional fields and reads an empty cap as the default', () => {
    const f = toForm(saved)
    f.providers[0]!.name = ' local '
    f.providers[0]!.base_url = ' http://10.0.0.2:11434/ '
    f.main = '  '
    f.cheap = ' llama3 '
    f.fallback.push(newFallback('   '))
    f.contextCap = ''
    const s = fromForm(f)
    expect(s.providers[0]).toEqual({ name: 'local', type: 'ollama', base_url: 'http://10.0.0.2:11434' })
    expect(s.providers[1]).toEqual({ name: 'anthropic', type: 'anthropic', base_url: 'https://api.anthropic.com' })
    expect(s.models).toEqual({ cheap: 'llama3', translation: 'anthropic/claude-haiku' })
    expect(s.fallback).toEqual(['anthropic/claude-sonnet', 'llama3'])
    expect(s.context_window_cap).toBe(0)
    expect('api_keys' in s).toBe(false)
  })

  it('starts from the Ollama default when nothing is configured', () => {
    const f = toForm(null)
    expect(f.providers).toHaveLength(1)
    expect(f.providers[0]).toMatchObject({ name: 'ollama', type: 'ollama', saved: null })
    expect(f.thinking).toBe('off')
    expect(toForm({ ...saved, thinking: 'bogus' as never }).thinking).toBe('off')
  })

  it('names new providers after their type, without clashes', () => {
    const f = toForm(saved)
    const a = newProvider(f.providers, 'anthropic')
    expect(a.name).toBe('anthropic-2')
    expect(newProvider([...f.providers, a], 'anthropic').name).toBe('anthropic-3')
    expect(newProvider(f.providers, 'openai')).toMatchObject({ name: 'openai', saved: null, keyAction: 'replace' })
  })
})

describe('validation hints', () => {
  it('mirrors backend/config.Validate', () => {
    const f = toForm(saved)
    expect(hasHints(validate(f))).toBe(false)

    const [a, b] = f.providers as [ReturnType<typeof newProvider>, ReturnType<typeof newProvider>]
    a.name = 'my server'
    b.base_url = 'localhost:11434'
    f.contextCap = '1000'
    f.fallback[0]!.ref = ''
    let h = validate(f)
    expect(h.providers[a.id]?.name).toMatch(/spaces/)
    expect(h.providers[b.id]?.base_url).toMatch(/https:\/\/api\.anthropic\.com/)
    expect(h.contextCap).toMatch(/2,048/)
    expect(h.fallback[f.fallback[0]!.id]).toBeTruthy()

    a.name = 'anthropic'
    f.contextCap = '32k'
    h = validate(f)
    expect(h.providers[b.id]?.name).toMatch(/Another provider/)
    expect(h.contextCap).toMatch(/whole number/)

    a.name = ''
    expect(validate(f).providers[a.id]?.name).toMatch(/required/)
    expect(validate({ ...f, providers: [] }).form).toMatch(/At least one provider/)
  })

  it('parses the context cap', () => {
    expect(parseCap('')).toBe(0)
    expect(parseCap(' 65,536 ')).toBe(65536)
    expect(parseCap('-1')).toBeNaN()
    expect(parseCap('2e4')).toBeNaN()
  })
})

describe('API keys', () => {
  it('sends new keys and removals for key-based providers only, after the save', () => {
    const f = toForm(saved)
    const openai = newProvider(f.providers, 'openai')
    openai.keyInput = ' sk-one, sk-two\nsk-one '
    f.providers.push(openai)
    const local = newProvider(f.providers, 'ollama')
    local.keyInput = 'ignored'
    f.providers.push(local)
    expect(keyChanges(f)).toEqual([{ provider: 'openai', keys: ['sk-one', 'sk-two'] }])

    f.providers[1]!.keyAction = 'remove'
    expect(keyChanges(f)[0]).toEqual({ provider: 'anthropic', keys: [] })

    // "Replace" with nothing typed keeps what is stored.
    f.providers[1]!.keyAction = 'replace'
    expect(keyChanges(f).map((c) => c.provider)).toEqual(['openai'])
  })

  it('knows when a key was typed or marked for removal, which fromForm leaves out', () => {
    // Settings reads config.json again as it opens and resets the form unless the user has
    // edited it: a key typed in that moment (a provider's, the images or Brave key) counts.
    const f = toForm(saved)
    expect(hasKeyEdits(f)).toBe(false)
    expect(hasKeyEdits(toForm(null))).toBe(false) // a first run's new provider row
    const typed = (edit: (g: ReturnType<typeof toForm>) => void) => {
      const g = toForm(saved)
      const before = JSON.stringify(fromForm(g))
      edit(g)
      expect(JSON.stringify(fromForm(g))).toBe(before)
      return hasKeyEdits(g)
    }
    expect(typed((g) => (g.providers[1]!.keyInput = 'sk-new'))).toBe(true)
    expect(typed((g) => (g.providers[1]!.keyAction = 'remove'))).toBe(true)
    expect(typed((g) => (g.tools.imagesKey.input = 'sk-img'))).toBe(true)
    expect(typed((g) => (g.tools.braveKey.input = 'BSA-1'))).toBe(true)
    expect(typed((g) => (g.tools.imagesKey.action = 'remove'))).toBe(true)
    expect(typed((g) => (g.tools.braveKey.input = '   '))).toBe(false)
  })

  it('describes stored keys and where they live', () => {
    expect(keyStatus(0)).toBe('No key stored')
    expect(keyStatus(1)).toBe('1 key stored')
    expect(keyStatus(3)).toBe('3 keys stored')
    expect(parseKeys('a b\tc,,a')).toEqual(['a', 'b', 'c'])
    expect(keysStoreLabel('keyring')).toBe('the system keyring')
    expect(keysStoreLabel('/home/u/.config/tofu/keys.json')).toBe('/home/u/.config/tofu/keys.json')
  })

  it('warns that renaming leaves the keys under the old name', () => {
    const f = toForm(saved)
    const p = f.providers[1]!
    expect(renameNote(p, saved.api_keys!)).toBe('')
    p.name = 'claude'
    expect(renameNote(p, saved.api_keys!)).toMatch(/stored under “anthropic”/)
  })
})

describe('helpers', () => {
  it('moves list items within bounds', () => {
    expect(move(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b'])
    expect(move(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c'])
    const l = ['a', 'b']
    expect(move(l, 0, -1)).toBe(l)
    expect(move(l, 1, 1)).toBe(l)
  })

  it('knows each type’s default base URL', () => {
    expect(defaultBaseURL('ollama')).toBe('http://127.0.0.1:11434')
    expect(defaultBaseURL('openai')).toBe('https://api.openai.com/v1')
    expect(defaultBaseURL('anthropic')).toBe('https://api.anthropic.com')
    // What Go resolved wins: Ollama's placeholder follows OLLAMA_HOST.
    expect(defaultBaseURL('ollama', { ollama: 'http://10.1.2.3:4567' })).toBe('http://10.1.2.3:4567')
    expect(defaultBaseURL('openai', { ollama: 'http://10.1.2.3:4567' })).toBe('https://api.openai.com/v1')
  })
})

describe('test connection', () => {
  const row = (over: object) => ({ ...newProvider([], 'openai'), name: ' vllm ', base_url: '', saved: 'vllm', ...over })

  it('sends the row as edited, with the keys typed, else the stored ones', () => {
    expect(connectionRequest(row({ base_url: ' http://gpu:8000/v1 ', keyAction: 'replace', keyInput: 'k1 k2' }))).toEqual({
      provider: { name: 'vllm', type: 'openai', base_url: 'http://gpu:8000/v1' },
      saved: 'vllm',
      keys: ['k1', 'k2'],
    })
    // Keys kept: none typed, the stored ones (under the saved name, even when renamed).
    expect(connectionRequest(row({ name: 'gpu', keyAction: 'keep', keyInput: 'ignored' }))).toEqual({ provider: { name: 'gpu', type: 'openai' }, saved: 'vllm', keys: [] })
    // Keys about to be removed are not used; Ollama takes none.
    expect(connectionRequest(row({ keyAction: 'remove' })).saved).toBe('')
    expect(connectionRequest(row({ type: 'ollama', keyAction: 'replace', keyInput: 'k' }))).toEqual({ provider: { name: 'vllm', type: 'ollama' }, saved: '', keys: [] })
  })

  it('shows the number of models or the exact error', () => {
    expect(connectionText({ models: 3 })).toEqual({ ok: true, text: 'Connected: 3 models' })
    expect(connectionText({ models: 1 })).toEqual({ ok: true, text: 'Connected: 1 model' })
    expect(connectionText({ models: 0 }).ok).toBe(false)
    expect(connectionText({ models: 0, error: { kind: 'auth', message: 'The API key was refused (401).', hint: 'Check the key.' } })).toEqual({
      ok: false,
      text: 'The API key was refused (401). Check the key.',
    })
    expect(connectionText({ models: 0, error: { kind: 'unreachable', message: 'cannot reach Ollama at http://h:1', hint: 'Start Ollama.' } }).text).toBe(
      'cannot reach Ollama at http://h:1. Start Ollama.',
    )
  })
})
