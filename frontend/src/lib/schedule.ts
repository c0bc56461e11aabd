/** The schedule view's logic (docs/SCHEDULE.md): jobs as Go stores them, and how they read. */

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
  return j.cron ? `cron ${j.cron}` : j.at && j.at !== zero ? `once at ${short(j.at)}` : ''
}

/** The next run, or that the job is done. */
export function nextText(j: ScheduleJob): string {
  if (j.done || !j.next || j.next === zero) return 'done'
  return `next ${short(j.next)}`
}

/** One run, said plainly; missed runs say how many and why. */
export function runText(r: ScheduleRun): string {
  if (r.outcome === 'missed') return `missed ${r.missed ?? 1} run${(r.missed ?? 1) === 1 ? '' : 's'} from ${short(r.due)}: Tofu was not open`
  if (r.outcome === 'ok' && r.late && r.started) return `${short(r.due)} ran late, at ${short(r.started)}`
  if (r.outcome === 'ok') return `${short(r.due)} ran`
  if (r.outcome === 'waiting') return `${short(r.due)} checked: not yet`
  return `${short(r.due)} failed: ${r.outcome}`
}

/** What a job does, in one line. */
export function whatText(j: ScheduleJob): string {
  if (j.kind === 'myday') return 'Writes the day’s My Day report (set in My Day or Settings)'
  const what = j.kind === 'command' ? (j.command ?? '') : j.kind === 'watch' ? `when “${j.condition}”: ${j.prompt}` : (j.prompt ?? '')
  return what + (j.workspace ? ` — in ${j.workspace}` : '')
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
