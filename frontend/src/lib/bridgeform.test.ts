// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { loadCatalogue, setLocale } from './i18n/index.svelte'
import { approveModes, checkDraft, configOf, draftOf, emptyDraft, parseAllowed, whyNotOn, type PlatformForm } from './bridgeform'
import type { BridgeInfo } from './platforms'

// The forms as BridgeService.Platforms sends them (backend/bridge/platforms/forms.go).
const matrix: PlatformForm = {
  platform: 'matrix',
  label: 'Matrix',
  fields: [
    { key: 'homeserver', label: 'Homeserver', required: true },
    { key: 'user_id', label: "Bot's user id", required: true },
  ],
  token: 'Access token',
  token_hint: '',
  allowed_hint: '',
}
const telegram: PlatformForm = { platform: 'telegram', label: 'Telegram', fields: [{ key: 'api', label: 'Bot API address' }], token: 'Bot token', token_hint: '', allowed_hint: '' }

describe('checkDraft', () => {
  const draft = (over = {}) => ({ ...emptyDraft('telegram'), name: 'phone', ...over })

  it('asks for a name, a usable one, unused when adding, and a known platform', () => {
    expect(checkDraft(draft({ name: ' ' }), telegram, [], true)).toContain('Give the bridge a name')
    expect(checkDraft(draft({ name: 'my phone' }), telegram, [], true)).toContain('no spaces')
    expect(checkDraft(draft({ name: 'a/b' }), telegram, [], true)).toContain('letters, digits')
    expect(checkDraft(draft(), telegram, ['phone'], true)).toContain('already set up')
    expect(checkDraft(draft(), telegram, ['phone'], false)).toBe('') // editing it
    expect(checkDraft(draft({ platform: '' }), undefined, [], true)).toBe('Choose the platform.')
    expect(checkDraft(draft({ platform: 'irc' }), undefined, [], true)).toContain('no bridge for the platform “irc”')
    expect(checkDraft(draft({ token: 'xapp-1 xoxb-2' }), telegram, [], true)).toBe('') // Slack's two tokens share a line
  })

  it('refuses on without an allowed user, or without the platform’s required fields', () => {
    expect(checkDraft(draft({ on: true }), telegram, [], true)).toContain('List the user ids allowed')
    expect(checkDraft(draft({ on: true, allowed: ' , ' }), telegram, [], true)).toContain('List the user ids allowed')
    expect(checkDraft(draft({ on: true, allowed: '42' }), telegram, [], true)).toBe('')
    expect(checkDraft(draft({ on: false }), telegram, [], true)).toBe('') // off: set up step by step
    const m = draft({ platform: 'matrix', on: true, allowed: '@me:example.org', fields: { homeserver: 'https://m.example.org' } })
    expect(checkDraft(m, matrix, [], true)).toBe('Fill in “Bot\'s user id” before turning the bridge on.')
    m.fields.user_id = '@tofu:example.org'
    expect(whyNotOn(m, matrix)).toBe('')
  })
})

describe('the draft and the settings', () => {
  it('splits allowed ids on commas, spaces and lines, once each', () => {
    expect(parseAllowed(' 1, 2\n3  1 ,')).toEqual(['1', '2', '3'])
    expect(parseAllowed('')).toEqual([])
  })

  it('round-trips a bridge: the platform’s fields by name, the token never filled in', () => {
    const b: BridgeInfo = {
      name: 'home',
      platform: 'matrix',
      on: true,
      has_token: true,
      allowed: ['@me:example.org'],
      status: { connected: true, running: 0 },
      config: { platform: 'matrix', on: true, homeserver: 'https://m.example.org', user_id: '@tofu:example.org', allowed: ['@me:example.org'], approve: 'safe', tools: ['web'] },
    }
    const d = draftOf(b)
    expect(d).toMatchObject({ name: 'home', on: true, allowed: '@me:example.org', approve: 'safe', tools: ['web'], token: '', workspace: '' })
    expect(d.fields).toEqual({ homeserver: 'https://m.example.org', user_id: '@tofu:example.org' })
    d.workspace = ' /home/me/inbox '
    expect(configOf(d, matrix)).toEqual({ ...b.config, workspace: '/home/me/inbox' })
  })

  it('sends only the chosen platform’s fields, and none left empty', () => {
    const d = { ...emptyDraft('telegram'), name: 'p', allowed: '1', fields: { homeserver: 'https://left.over', api: ' ' } }
    expect(configOf(d, telegram)).toEqual({ platform: 'telegram', on: false, allowed: ['1'], approve: 'ask', tools: [] })
  })
})

describe('the form in Chinese and Japanese', () => {
  const draft = (over = {}) => ({ ...emptyDraft('telegram'), name: 'phone', ...over })

  it('says what is wrong, and names the approval modes, in the UI language', async () => {
    setLocale('zh')
    await loadCatalogue('zh')
    expect(checkDraft(draft({ name: 'a b' }), telegram, [], true)).toBe('名称“a b”：最多 64 个字母、数字、点、短横线或下划线，不能含空格。')
    expect(approveModes.map((m) => m.label)).toEqual(['在聊天中询问', '拒绝需要询问的操作', '仅限读取'])
    setLocale('ja')
    await loadCatalogue('ja')
    expect(checkDraft(draft({ platform: '' }), undefined, [], true)).toBe('プラットフォームを選んでください。')
    setLocale('en')
    expect(approveModes[0].label).toBe('Ask in the chat')
    setLocale('system')
  })
})
