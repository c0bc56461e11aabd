/** The schedule view's logic (docs/SCHEDULE.md): jobs as Go stores them, and how they read (in the UI's language). */
import { t, type Key } from './i18n/index.svelte'

/** `late`: run at the next start for a time missed while Tofu was closed (My Day's catch-up). */
export type ScheduleRun = { due: string; started?: string; session?: string; outcome: string; missed?: number; late?: boolean }
export type ScheduleJob = {
  id: string
  name: string
  /** 'myday' is the My Day setting's job: shown here, changed only in My Day or Settings. */
  kind: 'prompt' | 'agent' | 'command' | 'watch' | 'myday'
  cron?: string
  at?: string
  prompt?: string
  session?: string
  workspace?: string
  command?: string
  condition?: string
  created: string
  next?: string
  done?: boolean
  runs?: ScheduleRun[] | null
}

const zero = '0001-01-01T00:00:00Z'

function short(iso: string): string {
  const d = new Date(iso)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`
}

/** When the job runs: its cron, or its single time. */
export function whenText(j: ScheduleJob): string {
  if (j.cron) {
    const words = cronText(j.cron)
    return words && !words.startsWith(t('schedule.not')) ? t('sched.cronWhen', { words, cron: j.cron }) : `cron ${j.cron}`
  }
  return j.at && j.at !== zero ? t('sched.onceAt', { time: short(j.at) }) : ''
}

/** The next run, or that the job is done. */
export function nextText(j: ScheduleJob): string {
  if (j.done || !j.next || j.next === zero) return t('sched.done')
  return t('sched.next', { time: short(j.next) })
}

/** One run, said plainly; missed runs say how many and why. */
export function runText(r: ScheduleRun): string {
  const n = r.missed ?? 1
  const due = short(r.due)
  if (r.outcome === 'missed') return t('sched.missed', { n, s: n === 1 ? '' : 's', time: due })
  if (r.outcome === 'ok' && r.late && r.started) return t('sched.ranLate', { due, started: short(r.started) })
  if (r.outcome === 'ok') return t('sched.ran', { due })
  if (r.outcome === 'waiting') return t('sched.notYet', { due })
  return t('sched.failed', { due, outcome: r.outcome })
}

/** What a job does, in one line. */
export function whatText(j: ScheduleJob): string {
  if (j.kind === 'myday') return t('sched.mydayWhat')
  const what = j.kind === 'command' ? (j.command ?? '') : j.kind === 'watch' ? t('sched.watchWhat', { condition: j.condition ?? '', prompt: j.prompt ?? '' }) : (j.prompt ?? '')
  return j.workspace ? t('sched.inWorkspace', { what, workspace: j.workspace }) : what
}

/** Runs missed while Tofu was closed, over every job: the panel's warning. */
export function missedTotal(jobs: ScheduleJob[]): number {
  return jobs.reduce((n, j) => n + (j.runs ?? []).filter((r) => r.outcome === 'missed').reduce((m, r) => m + (r.missed ?? 1), 0), 0)
}

/** The job the add form describes: only the fields its kind uses; a local time becomes RFC 3339. */
export function jobFromForm(f: { name: string; kind: ScheduleJob['kind']; when: 'cron' | 'at'; cron: string; at: string; prompt: string; session: string; workspace: string; command: string; condition: string }): Partial<ScheduleJob> {
  const j: Partial<ScheduleJob> = { name: f.name.trim(), kind: f.kind }
  if (f.when === 'cron') j.cron = f.cron.trim()
  else if (f.at) j.at = new Date(f.at).toISOString()
  if (f.kind !== 'command') j.prompt = f.prompt.trim()
  if (f.kind === 'prompt' || f.kind === 'watch') j.session = f.session.trim()
  if (f.kind === 'agent' || f.kind === 'command') j.workspace = f.workspace.trim()
  if (f.kind === 'command') j.command = f.command.trim()
  if (f.kind === 'watch') j.condition = f.condition.trim()
  return j
}

const DAYS: Key[] = ['cron.sun', 'cron.mon', 'cron.tue', 'cron.wed', 'cron.thu', 'cron.fri', 'cron.sat']

/** "a, b and c" (in the UI's language). */
function joinAnd(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : t('cron.and', { a: xs.slice(0, -1).join(t('cron.sep')), b: xs[xs.length - 1] })
}

/** A day-of-week field in words ("weekdays", "Mondays and Thursdays"), or null. */
function daysText(f: string): string | null {
  if (f === '*') return t('cron.everyDay')
  if (f === '1-5') return t('cron.weekdays')
  if (f === '0,6' || f === '6,0' || f === '6-7') return t('cron.weekends')
  const days: number[] = []
  for (const part of f.split(',')) {
    const r = /^(\d)(?:-(\d))?$/.exec(part)
    if (!r) return null
    const a = Number(r[1]) % 7
    const b = r[2] === undefined ? a : Number(r[2]) % 7
    if (b < a) return null
    for (let d = a; d <= b; d++) days.push(d)
  }
  return t('cron.onDays', { days: joinAnd(days.map((d) => t(DAYS[d]!))) })
}

/**
 * A five-field cron expression in words, for the Schedule form's preview: "Every day at 09:00",
 * "On weekdays at 09:30", "Every 15 minutes", "On day 1 of each month at 08:00". Null when it
 * is not one of those shapes (the form then shows the fields' names); "invalid" reasons as a
 * string starting with t("schedule.not") ("Not " in English).
 */
export function cronText(expr: string): string | null {
  const f = expr.trim().split(/\s+/)
  if (f.length !== 5) return t('cron.invalid')
  const [min, hour, dom, mon, dow] = f
  const num = (s: string, max: number) => /^\d+$/.test(s) && Number(s) <= max
  const every = /^\*\/(\d+)$/
  if (mon !== '*') return null
  if (every.test(min) && hour === '*' && dom === '*' && dow === '*') {
    const n = Number(every.exec(min)![1])
    return n === 1 ? t('cron.everyMinute') : t('cron.everyNMinutes', { n })
  }
  if (num(min, 59) && hour === '*' && dom === '*' && dow === '*') {
    const m = Number(min)
    return m === 0 ? t('cron.everyHour') : t('cron.everyHourAt', { m, s: m === 1 ? '' : 's' })
  }
  if (!num(min, 59)) return null
  const hours = hour.split(',')
  if (!hours.every((h) => num(h, 23))) return null
  const at = joinAnd(hours.map((h) => `${h.padStart(2, '0')}:${min.padStart(2, '0')}`))
  if (dom !== '*') {
    if (!num(dom, 31) || dow !== '*') return null
    return t('cron.monthDay', { dom, at })
  }
  const days = daysText(dow)
  if (!days) return null
  const line = t('cron.daysAt', { days, at })
  return line.charAt(0).toUpperCase() + line.slice(1)
}
