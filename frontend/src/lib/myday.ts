/** My Day's view logic (docs/MYDAY.md): the report as Go stores it, and how it reads. */
import { i18n, t as tr } from './i18n/index.svelte'

export type ModelUse = { model: string; calls: number; input_tokens: number; output_tokens: number; cost_usd: number }
export type SessionDay = { id: string; title: string; messages: number; replies: number; tool_calls: number; first: string; last: string }
export type DayReport = {
  date: string
  generated: string
  sessions: SessionDay[] | null
  open: { id: string; title: string; why: string }[] | null
  todos: string[] | null
  papers: { id: string; title: string; what: string }[] | null
  models: ModelUse[] | null
  total: ModelUse
  summary: string
  prose: 'model' | 'extractive'
  model?: string
  session?: string
  prose_note?: string
}

/** A date as YYYY-MM-DD in the local zone. */
export function isoDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`
}

/** The day before (n = -1) or after (1) a YYYY-MM-DD date, as YYYY-MM-DD. */
function dayAfter(date: string, n: number): string {
  const d = new Date(`${date}T12:00:00`)
  d.setDate(d.getDate() + n)
  return isoDate(d)
}

/** "Today", "Yesterday", or the weekday and date (in the UI's language). */
export function dayLabel(date: string, today: string): string {
  if (date === today) return tr('myday.todayLabel')
  if (date === dayAfter(today, -1)) return tr('myday.yesterdayLabel')
  const d = new Date(`${date}T12:00:00`)
  if (i18n.locale !== 'en') return new Intl.DateTimeFormat(i18n.locale, { year: 'numeric', month: 'long', day: 'numeric', weekday: 'short' }).format(d)
  // English is spelled out here rather than by toLocaleDateString, whose punctuation varies with ICU.
  const wd = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getDay()]
  const mo = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getMonth()]
  return `${wd} ${d.getDate()} ${mo} ${d.getFullYear()}`
}

/** The days to list: today first (even before its report exists), then the stored ones, newest first. */
export function dayList(stored: string[] | null, today: string): string[] {
  const rest = (stored ?? []).filter((d) => d !== today).sort().reverse()
  return [today, ...rest]
}

/** Tokens in short form: 950, 12.3k, 4.1M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

/** A cost in US dollars: "free" for local models, cents kept small. */
export function cost(usd: number): string {
  if (!usd) return tr('myday.free')
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`
}

/** The rows of the usage table: each model, then the total when there is more than one. */
export function usageRows(r: DayReport): ModelUse[] {
  const rows = r.models ?? []
  return rows.length > 1 ? [...rows, { ...r.total, model: tr('myday.total') }] : rows
}

/** Who wrote the prose, said plainly. */
export function proseLine(r: DayReport): string {
  if (r.prose === 'model') return tr('myday.proseModel', { model: r.model ?? tr('compaction.cheapModel') })
  if (r.prose_note) return r.prose_note
  return tr('myday.proseExtracted')
}

/** The My Day setting as MyDayService.Schedule returns it: the time ("" off), the next time,
 * and the latest run of its job. */
export type MyDaySchedule = { at: string; next?: string; last?: { due: string; started?: string; outcome: string; missed?: number; late?: boolean } | null }

/** A time typed for the setting: "" (off) or HH:MM on a 24-hour clock; the problem otherwise. */
export function checkTime(text: string): string {
  const t = text.trim()
  if (t === '' || /^([01]\d|2[0-3]):[0-5]\d$/.test(t)) return ''
  return tr('myday.badTime')
}

/** "today", "yesterday", "tomorrow", else the date as dayLabel writes it: inside a sentence. */
function dayWord(iso: string, today: string): string {
  const date = isoDate(new Date(iso))
  if (date === today) return tr('myday.todayWord')
  if (date === dayAfter(today, 1)) return tr('myday.tomorrowWord')
  if (date === dayAfter(today, -1)) return tr('myday.yesterdayWord')
  return dayLabel(date, today)
}

function hm(iso: string): string {
  const d = new Date(iso)
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`
}

/** What the panel says of the setting: when the report is written, and what happened last
 * (a time missed while Tofu was closed is said, and that it was written at the next start). */
export function scheduleLine(s: MyDaySchedule | null, today: string): string {
  if (!s || !s.at) return tr('myday.onlyAsked')
  let line = tr('myday.everyDay', { at: s.at })
  if (s.next && !s.next.startsWith('0001-')) line += ` · ${tr('myday.next', { when: `${dayWord(s.next, today)} ${hm(s.next)}` })}`
  line += tr('myday.period')
  const r = s.last
  if (!r) return line
  const sep = i18n.locale === 'en' ? ' ' : '' // Chinese and Japanese put no space between sentences
  const due = `${dayLabel(isoDate(new Date(r.due)), today)} ${hm(r.due)}`
  const more = (r.missed ?? 1) - 1
  if (r.outcome === 'missed') line += sep + (more > 0 ? tr('myday.missedMore', { due, n: more }) : tr('myday.missed', { due }))
  else if (r.outcome === 'ok' && r.late && r.started) line += sep + tr('myday.writtenLate', { due, when: `${dayWord(r.started, today)} ${hm(r.started)}` })
  else if (r.outcome === 'ok') line += sep + tr('myday.lastWritten', { due })
  else line += sep + tr('myday.failed', { due, outcome: r.outcome })
  return line
}

/**
 * A report's summary as paragraphs and a list: its "- " lines (the extractive summary's one per
 * conversation, or a model's bullets) become list items, and an item that says its title twice
 * ("Tides: Tides", the title being the first message) says it once (issue 36).
 */
export function summaryParts(summary: string): { lead: string[]; items: string[] } {
  const lead: string[] = []
  const items: string[] = []
  for (const raw of summary.split('\n')) {
    const line = raw.trim()
    if (!line) continue
    const m = /^[-*•]\s+(.*)$/.exec(line)
    if (!m) {
      lead.push(line)
      continue
    }
    const item = m[1]
    const at = item.indexOf(': ')
    if (at > 0) {
      const title = item.slice(0, at).trim()
      const rest = item.slice(at + 2).trim()
      const same = (a: string, b: string) => a.replace(/[\s.…]+$/, '').toLowerCase() === b.replace(/[\s.…]+$/, '').toLowerCase()
      if (same(title, rest) || rest.toLowerCase().startsWith(title.replace(/[.…]+$/, '').toLowerCase())) {
        items.push(rest.length >= title.length ? rest : title)
        continue
      }
    }
    items.push(item)
  }
  return { lead, items }
}
