// The UI's languages: English, Chinese and Japanese. Every moved string goes through t(key)
// and one catalogue per language (en.ts is the reference; i18n.test.ts fails on a key missing
// in a language or a t('…') key no catalogue has). The language follows the system
// (navigator.language) unless Settings chose one; the choice is kept in localStorage.
import { localStore } from '../storage'
import { en, type Key } from './en'

export type { Key } from './en'
export const LOCALES = ['en', 'zh', 'ja'] as const
export type Locale = (typeof LOCALES)[number]
export type LocaleChoice = Locale | 'system'

// English is in the first bundle; Chinese and Japanese load when chosen (the first bundle has a
// byte budget, src/build/bundle.test.ts): until then t() answers in English.
const loaded: Partial<Record<Locale, Record<Key, string>>> = $state({ en })

/** Loads the catalogue of l (once); t() uses it as soon as it is here. */
export async function loadCatalogue(l: Locale): Promise<Record<Key, string>> {
  const have = loaded[l]
  if (have) return have
  const cat = l === 'zh' ? (await import('./zh')).zh : (await import('./ja')).ja
  loaded[l] = cat
  return cat
}

/** Each language's name in itself, for the Settings list. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', zh: '中文', ja: '日本語' }

const KEY = 'tofu.locale'

/** The UI language for a BCP 47 tag (navigator.language): zh-*, ja-*, else English. */
export function localeOf(tag: string | undefined | null): Locale {
  const t = (tag ?? '').toLowerCase()
  if (t === 'zh' || t.startsWith('zh-')) return 'zh'
  if (t === 'ja' || t.startsWith('ja-')) return 'ja'
  return 'en'
}

function stored(): LocaleChoice {
  const v = localStore()?.getItem(KEY)
  return v === 'en' || v === 'zh' || v === 'ja' ? v : 'system'
}

const systemTag = (): string => (typeof navigator !== 'undefined' ? navigator.language : 'en')

class I18n {
  choice = $state<LocaleChoice>(stored())
  system = $state(localeOf(systemTag()))
  locale = $derived<Locale>(this.choice === 'system' ? this.system : this.choice)
}

export const i18n = new I18n()
void loadCatalogue(i18n.locale)

/** Chooses the UI language ('system': follow navigator.language); kept for the next start. */
export function setLocale(choice: LocaleChoice) {
  localStore()?.setItem(KEY, choice)
  i18n.choice = choice
  void loadCatalogue(i18n.locale)
  if (typeof document !== 'undefined') document.documentElement.lang = i18n.locale
}

/** The string of key in the UI's language, {name} replaced by vars[name]. */
export function t(key: Key, vars?: Record<string, string | number>): string {
  const s = loaded[i18n.locale]?.[key] ?? en[key]
  return vars ? s.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)) : s
}
