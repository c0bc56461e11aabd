// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { loadCatalogue, setLocale } from './i18n/index.svelte'
import { PROPOSED_MAX_LINES, browserCard, decidedLabel, desktopCard, diffLines, exitLabel, fileDiffs, formatDuration, proposedDiffs, relPath, summarize } from './tools'

describe('tool card helpers', () => {
  it('summarizes arguments in one line', () => {
    expect(summarize('desktop_input', { action: 'click', x: 150, y: 100 })).toBe('click 150, 100')
    expect(summarize('desktop_input', { action: 'double_click', x: 1, y: 2 })).toBe('double click 1, 2')
    expect(summarize('desktop_input', { action: 'type', text: 'hello from Tofu\n' })).toBe('type "hello from Tofu⏎"')
    expect(summarize('desktop_input', { action: 'key', keys: 'ctrl+s' })).toBe('key ctrl+s')
    expect(summarize('desktop_input', { action: 'drag', x: 10, y: 20, to_x: 30, to_y: 40 })).toBe('drag 10, 20 → 30, 40')
    expect(summarize('desktop_input', { action: 'press', ref: 'e12' })).toBe('press e12')
    expect(summarize('desktop_clipboard', { action: 'read' })).toBe('read')
    expect(summarize('desktop_windows', { action: 'focus', window: '0x400001' })).toBe('focus 0x400001')
    expect(summarize('desktop_open', { app: ['xterm', '-e', 'top'] })).toBe('xterm -e top')
    expect(summarize('read_files', { reads: [{ path: '/ws/a.go' }, { path: 'b.go', start: 40, end: 80 }] }, '/ws')).toBe('a.go, b.go:40-80')
    expect(summarize('edit_files', { edits: [{ path: 'a.go' }, { path: 'a.go' }, { path: 'b.go' }] })).toBe('a.go, b.go (3 edits)')
    expect(summarize('run_command', '{"command":"go test ./..."}')).toBe('go test ./...')
    expect(summarize('grep', { searches: [{ pattern: 'TODO', path: 'src' }] })).toBe('/TODO/ in src')
    expect(summarize('find_files', { pattern: '**/*.ts' })).toBe('**/*.ts')
    expect(summarize('write_file', { path: '/ws/new.txt', content: 'x' }, '/ws')).toBe('new.txt')
    expect(summarize('mystery', { a: 1 })).toBe('{"a":1}')
    expect(summarize('read_files', { reads: ['1', '2', '3', '4', '5'].map((p) => ({ path: p })) })).toBe('1, 2, 3 +2 more')
  })

  it('reads the diff of an edit from the meta', () => {
    const [f] = fileDiffs({ files: [{ path: '/ws/notes.txt', diff: '--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-soy\n+soybeans\n same\n', added: 1, removed: 1 }] }, '/ws')
    expect(f).toMatchObject({ path: 'notes.txt', added: 1, removed: 1, created: false })
    expect(f.lines.map((l) => l.kind)).toEqual(['hunk', 'del', 'add', 'ctx'])
    expect(diffLines('+++ b/x\n+y').map((l) => l.kind)).toEqual(['head', 'add'])
    expect(fileDiffs(null)).toEqual([])
  })

  it('formats exit codes, durations and paths', () => {
    expect(exitLabel({ exit_code: 0 })).toEqual({ text: 'exit 0', ok: true })
    expect(exitLabel({ exit_code: 2 })).toEqual({ text: 'exit 2', ok: false })
    expect(exitLabel({ exit_code: -1, timed_out: true })).toEqual({ text: 'timed out', ok: false })
    expect(exitLabel({ files: [] })).toBeNull()
    expect(formatDuration(12)).toBe('12 ms')
    expect(formatDuration(1400)).toBe('1.4 s')
    expect(formatDuration(125000)).toBe('2 min 5 s')
    expect(relPath('/ws/a/b.go', '/ws/')).toBe('a/b.go')
    expect(relPath('/other/b.go', '/ws')).toBe('/other/b.go')
  })
})

describe('proposedDiffs', () => {
  it('shows what an edit would change before it is allowed (regression: the card said only "writes notes.txt")', () => {
    const d = proposedDiffs('edit_files', { edits: [{ path: '/w/notes.txt', old_string: 'a\nb', new_string: 'a\nc\n' }, { path: '/w/notes.txt', old_string: 'x', new_string: '' }] }, '/w')
    expect(d).toHaveLength(1)
    expect(d[0]).toMatchObject({ path: 'notes.txt', added: 2, removed: 3, created: false })
    expect(d[0].lines.map((l) => l.text)).toEqual(['-a', '-b', '+a', '+c', '@@', '-x'])
  })
  it('shows a write as added lines, and clips a long one', () => {
    const d = proposedDiffs('write_file', JSON.stringify({ path: 'new.txt', content: 'one\ntwo\n' }))
    expect(d[0]).toMatchObject({ path: 'new.txt', added: 2, created: true })
    const long = proposedDiffs('write_file', { path: 'big.txt', content: 'x\n'.repeat(500) })
    expect(long[0].lines).toHaveLength(PROPOSED_MAX_LINES + 1)
    expect(long[0].lines.at(-1)?.text).toContain('420 more lines')
  })
  it('is empty for other tools', () => {
    expect(proposedDiffs('run_command', { command: 'make' })).toEqual([])
  })
})

describe('browser cards', () => {
  it('summarizes browser calls by their steps', () => {
    expect(summarize('browser_navigate', { url: 'http://127.0.0.1:8000/' })).toBe('http://127.0.0.1:8000/')
    expect(summarize('browser_act', { actions: [{ do: 'type', ref: 'e2', text: 'milk', submit: true }, { do: 'click', ref: 'e7' }] })).toBe('type e2 "milk", click e7')
    expect(summarize('browser_tabs', { op: 'switch', tab: 't2' })).toBe('switch t2')
    expect(summarize('browser_snapshot', {})).toBe('')
  })
  it('marks where a desktop click landed on the screen', () => {
    const card = desktopCard('desktop_input', { action: 'click', x: 300, y: 200, screen_w: 1200, screen_h: 800, window: 'XTerm', thumbnail: '/9j/4AAQ' })
    expect(card).toEqual({ thumbnail: 'data:image/jpeg;base64,/9j/4AAQ', markX: 25, markY: 25, window: 'XTerm', at: '300, 200' })
    expect(desktopCard('desktop_tree', { action: 'tree' })?.markX).toBeNull()
    expect(desktopCard('desktop_input', { thumbnail: '"><script>' })?.thumbnail).toBe('')
    expect(desktopCard('browser_act', {})).toBeNull()
  })

  it('shows the page after the action, with a thumbnail only when it is base64', () => {
    const card = browserCard('browser_act', { action: 'act', target: 'click link "Active"', url: 'http://x/#/active', title: 'TodoMVC', thumbnail: '/9j/4AAQ' })
    expect(card).toEqual({ target: 'click link "Active"', title: 'TodoMVC', url: 'http://x/#/active', thumbnail: 'data:image/jpeg;base64,/9j/4AAQ' })
    expect(browserCard('browser_act', { thumbnail: '"><script>' })?.thumbnail).toBe('')
    expect(browserCard('run_command', { url: 'x' })).toBeNull()
  })
})

describe('decidedLabel', () => {
  it('says who denied what (regression, issue 36: a critic call blocked by policy read as "denied by policy" right after the user clicked Deny)', () => {
    expect(decidedLabel({ decision: 'deny', by: 'user', reason: '' })).toEqual({ text: 'denied by you', why: '' })
    expect(decidedLabel({ decision: 'deny', by: 'policy', reason: 'nobody can approve it now' }, 'critic')).toEqual({
      text: 'the critic’s call, blocked by Tofu without asking',
      why: 'nobody can approve it now',
    })
    expect(decidedLabel({ decision: 'deny', by: 'policy', reason: 'a rule denies `git push*`' }, 'worker').text).toBe('blocked by Tofu without asking')
    expect(decidedLabel({ decision: 'allow', by: 'user', reason: '' }).text).toBe('allowed once')
    expect(decidedLabel(undefined).text).toBe('')
  })
})

describe('todo_write', () => {
  it('summarizes the plan in its header', () => {
    expect(summarize('todo_write', { todos: [{ content: 'a', status: 'done' }, { content: 'b', status: 'pending' }] })).toBe('2 steps, 1 done')
    expect(summarize('todo_write', { todos: [] })).toBe('0 steps, 0 done')
  })
})

describe('the summaries in Chinese and Japanese', () => {
  it('say the plan, the edits and the exit status in the UI language', async () => {
    setLocale('zh')
    await loadCatalogue('zh')
    expect(summarize('todo_write', { todos: [{ content: 'a', status: 'done' }, { content: 'b', status: 'pending' }] })).toBe('共 2 步，已完成 1 步')
    expect(exitLabel({ exit_code: 2 })?.text).toBe('退出码 2')
    setLocale('ja')
    await loadCatalogue('ja')
    expect(summarize('todo_write', { todos: [{ content: 'a', status: 'done' }, { content: 'b', status: 'pending' }] })).toBe('2 ステップ、1 件完了')
    expect(summarize('edit_files', { edits: [{ path: 'a.go' }, { path: 'a.go' }] })).toBe('a.go（2 件の編集）')
    setLocale('en')
    expect(summarize('todo_write', { todos: [{ content: 'a', status: 'done' }] })).toBe('1 step, 1 done')
    setLocale('system')
  })
})
