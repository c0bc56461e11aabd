// @vitest-environment jsdom
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { en } from './en'
import { ja } from './ja'
import { zh } from './zh'
import { i18n, loadCatalogue, LOCALES, localeOf, setLocale, t } from './index.svelte'

const catalogues = { en, zh, ja }

// Keys whose text is a name or a code, the same in every language.
const SAME_IN_EVERY_LANGUAGE = new Set<string>(['schedule.cron', 'settings.nav.mcp'])

const src = join(__dirname, '..', '..')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return files(p)
    return /\.(svelte|ts)$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : []
  })
}

describe('the catalogue', () => {
  it('has every key in every language, and no empty string', () => {
    const keys = Object.keys(catalogues.en).sort()
    for (const l of LOCALES) {
      expect(Object.keys(catalogues[l]).sort(), `keys of ${l}`).toEqual(keys)
      for (const [k, v] of Object.entries(catalogues[l])) expect(v.trim(), `${l} ${k}`).not.toBe('')
    }
  })

  it("holds every key the UI asks for with t('…')", () => {
    const used = new Set<string>()
    for (const f of files(src)) {
      for (const m of readFileSync(f, 'utf8').matchAll(/\bt\(\s*'([\w.]+)'/g)) used.add(m[1]!)
    }
    expect(used.size).toBeGreaterThan(10)
    const missing = [...used].filter((k) => !(k in catalogues.en))
    expect(missing, 'keys used but not in the catalogue').toEqual([])
  })

  it('keeps the same {variables} in every language', () => {
    // {s}, {s2}…: English's plural ending ('' or 's'), which Chinese and Japanese do without.
    const vars = (s: string, l: string) =>
      [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((n) => l === 'en' || !/^s\d*$/.test(n)).sort()
    for (const [k, v] of Object.entries(catalogues.en)) {
      for (const l of LOCALES) expect(vars(catalogues[l][k as keyof typeof catalogues.en], l), `${l} ${k}`).toEqual(vars(v, l))
    }
  })

  it('translates every key: Chinese and Japanese differ from English but for names', () => {
    const same = (l: 'zh' | 'ja') => Object.keys(en).filter((k) => catalogues[l][k as keyof typeof en] === en[k as keyof typeof en] && !SAME_IN_EVERY_LANGUAGE.has(k))
    expect(same('zh'), 'zh keys still in English').toEqual([])
    expect(same('ja'), 'ja keys still in English').toEqual([])
  })
})

describe('the language', () => {
  it('follows the system tag', () => {
    expect(localeOf('zh-CN')).toBe('zh')
    expect(localeOf('zh-Hant-TW')).toBe('zh')
    expect(localeOf('ja-JP')).toBe('ja')
    expect(localeOf('ja')).toBe('ja')
    expect(localeOf('en-GB')).toBe('en')
    expect(localeOf('fr')).toBe('en')
    expect(localeOf(undefined)).toBe('en')
  })

  it('is switched in Settings and kept', async () => {
    setLocale('ja')
    // Equal, not the same object: a worker shares modules between test files (vite.config.ts),
    // and the one the loader cached may come from an earlier file's import.
    expect(await loadCatalogue('ja')).toStrictEqual(ja)
    expect(i18n.locale).toBe('ja')
    expect(t('plan.progress', { done: 1, total: 3 })).toBe('3 件中 1 件完了')
    expect(localStorage.getItem('tofu.locale')).toBe('ja')
    setLocale('zh')
    await loadCatalogue('zh')
    expect(t('sidebar.new')).toBe('新建对话')
    setLocale('system')
    expect(i18n.locale).toBe(localeOf(navigator.language))
  })
})
