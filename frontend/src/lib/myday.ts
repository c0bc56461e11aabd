/** My Day's view logic (docs/MYDAY.md): the report as Go stores it, and how it reads. */

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

/** "Today", "Yesterday", or the weekday and date. */
export function dayLabel(date: string, today: string): string {
  if (date === today) return 'Today'
  const t = new Date(`${today}T12:00:00`)
  t.setDate(t.getDate() - 1)
  if (date === isoDate(t)) return 'Yesterday'
  // Spelled out here rather than by toLocaleDateString, whose punctuation varies with ICU.
  const d = new Date(`${date}T12:00:00`)
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
  if (!usd) return 'free'
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`
}

/** The rows of the usage table: each model, then the total when there is more than one. */
export function usageRows(r: DayReport): ModelUse[] {
  const rows = r.models ?? []
  return rows.length > 1 ? [...rows, { ...r.total, model: 'Total' }] : rows
}

/** Who wrote the prose, said plainly. */
export function proseLine(r: DayReport): string {
  if (r.prose === 'model') return `Summary written by ${r.model ?? 'the cheap model'} from the figures below.`
  if (r.prose_note) return r.prose_note
  return 'Summary extracted from the day’s messages (no cheap model is set in Settings).'
}
