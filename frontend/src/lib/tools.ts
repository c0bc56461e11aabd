// Pure helpers for the agent's tool-call cards: a one-line summary of a call's arguments, the
// diff of an edit (from the result's `meta`), durations and paths. See backend/tools/coding.

import { t, type Key } from './i18n/index.svelte'

type Obj = Record<string, unknown>
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x)
const str = (x: unknown): string => (typeof x === 'string' ? x : '')
const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : isObj(x) ? [x] : [])

/** Cuts a line to n characters (whitespace collapsed). */
export function clip(s: string, n = 120): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > n ? one.slice(0, n - 1) + '…' : one
}

/** Parses a tool call's arguments (an object, or JSON text from some providers). */
export function argsOf(raw: unknown): Obj {
  if (isObj(raw)) return raw
  if (typeof raw === 'string') {
    try {
      const v = JSON.parse(raw)
      if (isObj(v)) return v
    } catch {
      // shown raw below
    }
  }
  return {}
}

/** A path as the user thinks of it: relative to the workspace when inside it. */
export function relPath(path: string, workspace = ''): string {
  const ws = workspace.replace(/\/+$/, '')
  if (ws && path.startsWith(ws + '/')) return path.slice(ws.length + 1)
  if (ws && path === ws) return '.'
  return path
}

const uniq = (xs: string[]) => [...new Set(xs.filter(Boolean))]

function joinMore(xs: string[], max = 3): string {
  if (xs.length <= max) return xs.join(', ')
  return t('toolsum.more', { list: xs.slice(0, max).join(', '), n: xs.length - max })
}

/** The one line under a tool's name: what it reads, edits, runs or asks. */
export function summarize(name: string, raw: unknown, workspace = ''): string {
  const a = argsOf(raw)
  const p = (x: unknown) => relPath(str(x), workspace)
  switch (name) {
    case 'read_files': {
      const reads = list(a.reads ?? a.files ?? a.paths).map((r) => {
        if (typeof r === 'string') return p(r)
        if (!isObj(r)) return ''
        const path = p(r.path ?? r.file)
        const start = Number(r.start ?? 0)
        const end = Number(r.end ?? 0)
        return start || end ? `${path}:${start || 1}-${end || ''}`.replace(/-$/, '') : path
      })
      return joinMore(uniq(reads))
    }
    case 'edit_files': {
      const edits = list(a.edits).filter(isObj)
      const files = uniq(edits.map((e) => p(e.path ?? e.file)))
      const n = edits.length
      return n > files.length ? t('toolsum.edits', { files: joinMore(files), n }) : joinMore(files)
    }
    case 'write_file':
      return p(a.path ?? a.file)
    case 'todo_write': {
      // The checklist under the card shows the items: the header says how many and how far.
      const items = list(a.todos).filter(isObj)
      const done = items.filter((x) => x.status === 'done').length
      return t('toolsum.steps', { n: items.length, s: items.length === 1 ? '' : 's', done })
    }
    case 'spawn_agents': {
      const agents = list(a.agents).filter(isObj)
      return t('toolsum.agents', { n: agents.length, s: agents.length === 1 ? '' : 's', list: joinMore(agents.map((x) => str(x.objective)), 2) })
    }
    case 'grep': {
      const searches = list(a.searches).filter(isObj)
      const one = (s: Obj) => {
        const where = str(s.path) || str(s.glob)
        const what = `/${str(s.pattern ?? s.query)}/`
        return where ? t('toolsum.in', { what, where: p(where) }) : what
      }
      return joinMore(searches.map(one), 2)
    }
    case 'find_files':
      return a.path ? t('toolsum.in', { what: str(a.pattern ?? a.glob), where: p(a.path) }) : str(a.pattern ?? a.glob)
    case 'run_command':
      return clip(a.background ? t('toolsum.background', { cmd: str(a.command) }) : str(a.command), 160)
    case 'job_output':
    case 'job_kill':
      return str(a.id)
    case 'ask_human':
      return clip(str(a.question))
    case 'read_result':
      return str(a.ref)
    case 'browser_navigate':
      return clip(str(a.url), 160)
    case 'browser_act':
      return joinMore(
        list(a.actions)
          .filter(isObj)
          .map((s) => clip(`${str(s.do)} ${str(s.ref)}${s.text ? ` "${str(s.text)}"` : ''}${s.keys ? ` ${str(s.keys)}` : ''}`.trim(), 60)),
        3,
      )
    case 'browser_tabs':
      return `${str(a.op)}${a.tab ? ` ${str(a.tab)}` : ''}${a.url ? ` ${str(a.url)}` : ''}`
    case 'browser_eval':
      return clip(str(a.js))
    case 'browser_snapshot':
    case 'browser_read':
    case 'browser_screenshot':
      return ''
    case 'desktop_input':
      return desktopInput(a)
    case 'desktop_windows':
      return a.action && a.action !== 'list' ? `${str(a.action)} ${str(a.window)}`.trim() : ''
    case 'desktop_clipboard':
      return a.action === 'write' ? t('toolsum.clipWrite', { text: clip(str(a.text), 60) }) : t(a.selection === 'primary' ? 'toolsum.clipReadPrimary' : 'toolsum.clipRead')
    case 'desktop_open':
      return clip(a.target ? str(a.target) : list(a.app).map(str).join(' '), 160)
    case 'desktop_screenshot':
      return a.window ? t('toolsum.window', { w: str(a.window) }) : Array.isArray(a.region) ? t('toolsum.region', { r: a.region.map(Number).join(', ') }) : ''
    case 'desktop_tree':
      return a.window ? t('toolsum.window', { w: str(a.window) }) : ''
  }
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw ?? {})
  return clip(text === '{}' ? '' : text)
}

/** "12 ms", "1.4 s", "2 min 5 s" */
export function formatDuration(ms: number): string {
  if (!(ms >= 0)) return ''
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = ms / 1000
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`
  const m = Math.floor(s / 60)
  return `${m} min ${Math.round(s - m * 60)} s`
}

export type DiffLine = { kind: 'add' | 'del' | 'ctx' | 'hunk' | 'head'; text: string }
export type FileDiff = { path: string; added: number; removed: number; created: boolean; error?: string; lines: DiffLine[] }

/** Splits a unified diff into lines to colour. */
export function diffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = []
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) out.push({ kind: 'head', text: line })
    else if (line.startsWith('@@')) out.push({ kind: 'hunk', text: line })
    else if (line.startsWith('+')) out.push({ kind: 'add', text: line })
    else if (line.startsWith('-')) out.push({ kind: 'del', text: line })
    else out.push({ kind: 'ctx', text: line })
  }
  return out
}

/** The per-file diffs of an edit_files / write_file result's meta (coding.EditMeta). */
export function fileDiffs(meta: unknown, workspace = ''): FileDiff[] {
  if (!isObj(meta)) return []
  return list(meta.files)
    .filter(isObj)
    .map((f) => ({
      path: relPath(str(f.path), workspace),
      added: Number(f.added ?? 0) || 0,
      removed: Number(f.removed ?? 0) || 0,
      created: f.created === true,
      error: str(f.error) || undefined,
      // The ---/+++ header repeats the path shown above it.
      lines: diffLines(str(f.diff)).filter((l) => l.kind !== 'head'),
    }))
}

/** run_command's exit status (coding.RunMeta): "exit 0", "exit 2", "timed out", "stopped". */
export function exitLabel(meta: unknown): { text: string; ok: boolean } | null {
  if (!isObj(meta) || typeof meta.exit_code !== 'number') return null
  if (meta.job_id) return { text: t('toolsum.job', { id: str(meta.job_id) }), ok: true }
  if (meta.timed_out) return { text: t('toolsum.timedOut'), ok: false }
  if (meta.canceled) return { text: t('toolsum.stopped'), ok: false }
  if (meta.exit_code < 0) return { text: t('toolsum.killed'), ok: false }
  return { text: t('toolsum.exit', { code: meta.exit_code }), ok: meta.exit_code === 0 }
}

/** Lines of a proposed diff shown before Allow: enough to judge, not a whole file. */
export const PROPOSED_MAX_LINES = 80

/**
 * The change an edit_files / write_file call asks to make, from its arguments, shown on the
 * approval card before Allow: each edit's old text as removed lines and its new text as added
 * lines; a write's content as added lines. The result's real diff replaces it once the call ran.
 */
export function proposedDiffs(name: string, raw: unknown, workspace = ''): FileDiff[] {
  const a = argsOf(raw)
  const lines = (text: string, kind: 'add' | 'del'): DiffLine[] =>
    text === '' ? [] : text.replace(/\n$/, '').split('\n').map((l) => ({ kind, text: (kind === 'add' ? '+' : '-') + l }))
  const files = new Map<string, FileDiff>()
  const file = (path: string, created = false) => {
    const key = relPath(path, workspace)
    let f = files.get(key)
    if (!f) files.set(key, (f = { path: key, added: 0, removed: 0, created, lines: [] }))
    return f
  }
  if (name === 'write_file') {
    const f = file(str(a.path ?? a.file ?? a.file_path), true)
    f.lines = lines(str(a.content ?? a.text ?? a.contents), 'add')
    f.added = f.lines.length
  } else if (name === 'edit_files') {
    for (const e of list(a.edits ?? a)) {
      if (!isObj(e)) continue
      const f = file(str(e.path ?? e.file ?? e.file_path))
      const del = lines(str(e.old_string ?? e.old ?? e.old_str), 'del')
      const add = lines(str(e.new_string ?? e.new ?? e.new_str), 'add')
      if (f.lines.length) f.lines.push({ kind: 'hunk', text: '@@' })
      f.lines.push(...del, ...add)
      f.removed += del.length
      f.added += add.length
    }
  }
  return [...files.values()]
    .filter((f) => f.path)
    .map((f) => (f.lines.length > PROPOSED_MAX_LINES ? { ...f, lines: [...f.lines.slice(0, PROPOSED_MAX_LINES), { kind: 'ctx', text: `… ${f.lines.length - PROPOSED_MAX_LINES} more lines` }] } : f))
}

/** What a browser tool's card shows (browse.Meta): the action on its target, the page's
 * title and URL, and a thumbnail of the page after it (a JPEG, base64 in the JSON). */
export type BrowserCard = { target: string; title: string; url: string; thumbnail: string }

export function browserCard(name: string, meta: unknown): BrowserCard | null {
  if (!name.startsWith('browser_') || !isObj(meta)) return null
  const thumb = str(meta.thumbnail)
  return {
    target: str(meta.target),
    title: str(meta.title),
    url: str(meta.url),
    // Only base64 goes into the data URL: the JSON came from the tool, not the page.
    thumbnail: /^[A-Za-z0-9+/=]+$/.test(thumb) ? `data:image/jpeg;base64,${thumb}` : '',
  }
}

/** What a desktop tool's card shows (desk.Meta): the screen after the action, 320 pixels
 * wide, and where a click landed on it (in percent of the screen), with the app acted on. */
export type DesktopCard = { thumbnail: string; markX: number | null; markY: number | null; window: string; at: string }

export function desktopCard(name: string, meta: unknown): DesktopCard | null {
  if (!name.startsWith('desktop_') || !isObj(meta)) return null
  const thumb = str(meta.thumbnail)
  const w = typeof meta.screen_w === 'number' ? meta.screen_w : 0
  const h = typeof meta.screen_h === 'number' ? meta.screen_h : 0
  const x = typeof meta.x === 'number' ? meta.x : null
  const y = typeof meta.y === 'number' ? meta.y : null
  const marked = x !== null && y !== null && w > 0 && h > 0
  return {
    // Only base64 goes into the data URL.
    thumbnail: /^[A-Za-z0-9+/=]+$/.test(thumb) ? `data:image/jpeg;base64,${thumb}` : '',
    markX: marked ? (100 * x!) / w : null,
    markY: marked ? (100 * y!) / h : null,
    window: str(meta.window),
    at: marked ? `${x}, ${y}` : '',
  }
}

/** A desktop_input call in words: "click 150, 100", "type “hello”", "key ctrl+s", "press e12". */
function desktopInput(a: Obj): string {
  const at = (x: unknown, y: unknown) => (x !== undefined && y !== undefined ? ` ${Number(x)}, ${Number(y)}` : '')
  const action = str(a.action).replace('_', ' ')
  switch (a.action) {
    case 'type':
      return `type "${clip(str(a.text).replace(/\n/g, '⏎'), 60)}"`
    case 'key':
      return `key ${str(a.keys)}`
    case 'press':
      return `press ${str(a.ref)}`
    case 'set_text':
      return `set ${str(a.ref)} to "${clip(str(a.text), 40)}"`
    case 'drag':
      return `drag${at(a.x, a.y)} →${at(a.to_x, a.to_y)}`
    case 'scroll':
      return `scroll ${Number(a.amount) || 0}${at(a.x, a.y) ? ' at' + at(a.x, a.y) : ''}`
    default:
      return `${action}${at(a.x, a.y)}`.trim()
  }
}

/** A running call's progress as the card shows it: the bar's fraction (null: no total known)
 * and "3/10 · message" (or "3 · message" without a total). */
export function progressLabel(p: { progress: number; total?: number; message?: string } | undefined): { fraction: number | null; text: string } | null {
  if (!p) return null
  const n = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1))
  const total = p.total && p.total > 0 ? p.total : 0
  const count = total ? `${n(p.progress)}/${n(total)}` : p.progress > 0 ? n(p.progress) : ''
  const text = [count, clip(p.message ?? '', 160)].filter(Boolean).join(' · ')
  return { fraction: total ? Math.min(1, Math.max(0, p.progress / total)) : null, text }
}

const ALLOWED: Record<string, Key> = {
  allow: 'decided.once',
  allow_session: 'decided.session',
  allow_workspace: 'decided.workspace',
  allow_always: 'decided.always',
  allow_always_global: 'decided.alwaysGlobal',
}

/**
 * Who decided a call's approval, in words: "allowed once", "denied by you", or for the policy
 * the rule's reason and whose call it was ("the critic's call, blocked by Tofu: …"), so a call
 * refused without asking does not read as if the user's Deny was ignored (issue 36).
 */
export function decidedLabel(a: { decision: string; by: string; reason: string } | undefined, phase?: string): { text: string; why: string } {
  if (!a || !a.decision) return { text: '', why: '' }
  const allowed = ALLOWED[a.decision]
  if (allowed) return { text: t(allowed), why: '' }
  if (a.by !== 'policy') return { text: t('decided.denied'), why: '' }
  if (phase === 'critic') return { text: t('decided.blockedCritic'), why: a.reason }
  if (phase === 'planner') return { text: t('decided.blockedPlanner'), why: a.reason }
  return { text: t('decided.blocked'), why: a.reason }
}
