import { describe, expect, it } from 'vitest'
import { applyTools, imagesCheckText, parseHosts, toToolsForm, toolKeyChanges, validateTools } from './toolsettings'
import type { Settings } from './types'

const base: Settings = { providers: [{ name: 'ollama', type: 'ollama' }], models: {} }

describe('tool settings', () => {
  it('reads the images provider, the search provider Go would pick and the hosts', () => {
    expect(toToolsForm(null)).toMatchObject({ imagesURL: '', search: 'duckduckgo', allowHosts: '' })
    const s: Settings = { ...base, images: { base_url: 'https://api.openai.com', model: 'gpt-image-1' }, web_allow_hosts: ['nas.local', '10.0.0.2'] }
    expect(toToolsForm(s)).toMatchObject({ imagesURL: 'https://api.openai.com', imagesModel: 'gpt-image-1', allowHosts: 'nas.local, 10.0.0.2' })
    // No provider named: a SearXNG URL first, then a stored Brave key, else DuckDuckGo.
    expect(toToolsForm({ ...base, web_search: { searxng_url: 'http://s:8888' }, tool_keys: { brave: 'BSA…1234' } }).search).toBe('searxng')
    expect(toToolsForm({ ...base, tool_keys: { brave: 'BSA…1234' } }).search).toBe('brave')
    expect(toToolsForm({ ...base, web_search: { provider: 'duckduckgo' }, tool_keys: { brave: 'BSA…1234' } }).search).toBe('duckduckgo')
  })
  it('writes what changed, trimmed, and nothing when left at the defaults', () => {
    const out: Settings = { ...base }
    applyTools(out, toToolsForm(null))
    expect(out).toEqual(base)
    const f = { ...toToolsForm(null), imagesURL: ' https://img.example/ ', imagesModel: ' dall-e-3 ', search: 'searxng' as const, searxngURL: 'http://127.0.0.1:8888/', allowHosts: 'NAS.local,  192.168.1.20\nnas.local' }
    applyTools(out, f)
    expect(out.images).toEqual({ base_url: 'https://img.example', model: 'dall-e-3' })
    expect(out.web_search).toEqual({ provider: 'searxng', searxng_url: 'http://127.0.0.1:8888' })
    expect(out.web_allow_hosts).toEqual(['nas.local', '192.168.1.20'])
    applyTools(out, { ...f, imagesURL: '', imagesModel: '', allowHosts: ' ' })
    expect('images' in out || 'web_allow_hosts' in out).toBe(false)
    expect(parseHosts('a.b, a.b c')).toEqual(['a.b', 'c'])
  })
  it('sends keys typed or removed, never a stored one', () => {
    const f = toToolsForm(null)
    expect(toolKeyChanges(f)).toEqual([])
    f.imagesKey = { action: 'replace', input: ' sk-new ' }
    f.braveKey = { action: 'remove', input: '' }
    expect(toolKeyChanges(f)).toEqual([{ name: 'images', key: 'sk-new' }])
    f.search = 'brave'
    expect(toolKeyChanges(f)).toEqual([{ name: 'images', key: 'sk-new' }, { name: 'brave', key: '' }])
  })
  it('says what to fix before Go refuses it', () => {
    const f = toToolsForm(null)
    expect(validateTools(f, {})).toEqual({})
    expect(validateTools({ ...f, imagesURL: 'api.openai.com' }, {}).imagesURL).toContain('http(s) URL')
    expect(validateTools({ ...f, imagesModel: 'dall-e-3' }, {}).imagesURL).toContain('base URL')
    expect(validateTools({ ...f, imagesURL: 'https://x', imagesKey: { action: 'replace', input: 'a b' } }, {}).imagesKey).toContain('One key')
    expect(validateTools({ ...f, search: 'searxng' }, {}).searxngURL).toContain('needs your instance')
    expect(validateTools({ ...f, search: 'brave' }, {}).braveKey).toContain('needs an API key')
    expect(validateTools({ ...f, search: 'brave' }, { brave: 'BSA…1234' }).braveKey).toBeUndefined()
    expect(validateTools({ ...f, search: 'brave', braveKey: { action: 'remove', input: '' } }, { brave: 'BSA…1234' }).braveKey).toContain('needs an API key')
    expect(validateTools({ ...f, allowHosts: 'nas.local, http://wiki.lan, nas:5000, fd00::1, 192.168.1.20' }, {}).allowHosts).toBe(
      'Not a host name or address: http://wiki.lan, nas:5000 (no scheme, port or path: nas.local, 192.168.1.20).')
  })
  it('says what Test connection found', () => {
    expect(imagesCheckText({ models: 2, listed: true }, 'gpt-image-1')).toEqual({ ok: true, text: 'Connected: gpt-image-1 is listed (2 models).' })
    expect(imagesCheckText({ models: 1, listed: false }, 'sdxl')).toEqual({ ok: false, text: 'Connected, but sdxl is not among the 1 model listed.' })
    expect(imagesCheckText({ models: 0, listed: false, error: 'HTTP 401: bad key' }, 'x')).toEqual({ ok: false, text: 'HTTP 401: bad key' })
  })
})
