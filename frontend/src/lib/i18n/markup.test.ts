// @vitest-environment jsdom
// No English in what a user sees in Chinese or Japanese: every .svelte component's markup is
// scanned for text, user-facing attributes (title, placeholder, aria-label, alt, label) and
// string literals inside {…} that hold words, and each must go through t(). What stays as is
// is code, a command, a file name or a brand, in the short list below.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const src = join(__dirname, '..', '..')

// Shown as is in every language: brands, commands, paths, keys, example values.
const ALLOWED = new Set([
  'Tofu',
  'Ollama',
  'Cron',
  'tofu serve',
  '#token=…',
  'ollama serve\\n',
  'ollama pull',
  'Enter',
  'Esc',
  'Shift',
  'Ctrl',
  'eval',
  'stderr',
  'mcp',
  'server/*',
  'qwen3:8b',
  'provider/model',
  'generate_image',
  'web_search',
  'SKILL.md',
  '.tofu/skills',
  '.claude/skills',
  '/v1/models',
  'git push*',
  'phone',
  // key names in handlers (e.key === 'Escape')
  'Escape',
  'Backspace',
  'Delete',
  'make test',
  '/home/me/project',
  'https://api.openai.com',
  'gpt-image-1',
  'http://127.0.0.1:8888',
  'nas.local, 192.168.1.20',
])

function svelteFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return svelteFiles(p)
    return name.endsWith('.svelte') ? [p] : []
  })
}

const blank = (m: string) => m.replace(/[^\n]/g, ' ')

/** Whether a quoted string in markup is words a user reads: a capitalised word, or several
 * words; not a key, an identifier, a CSS class list or a value. */
function shown(v: string): boolean {
  if (!/[A-Za-z]{2,}/.test(v)) return false
  if (/^[A-Z][a-z]+$/.test(v)) return true
  if (/^[\w.-]+$/.test(v)) return false
  if (/^\s*[{[]/.test(v) || /(^|\s)-|-(\s|$)/.test(v)) return false // JSON, or an id around a ${…}
  return /[A-Z][a-z]/.test(v) || /\s/.test(v.trim())
}

/** The {…} expressions of markup, outermost only (their inner braces and `${…}` included). */
function expressions(markup: string): string[] {
  const out: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < markup.length; i++) {
    if (markup[i] === '{') {
      if (depth++ === 0) start = i
    } else if (markup[i] === '}' && depth > 0 && --depth === 0) out.push(markup.slice(start, i + 1))
  }
  return out
}

/** The words a component shows without t(): text, attributes and quoted strings in its markup. */
export function untranslated(svelte: string): string[] {
  const markup = svelte
    .replace(/<script[\s\S]*?<\/script>/g, blank)
    .replace(/<style[\s\S]*?<\/style>/g, blank)
    .replace(/<!--[\s\S]*?-->/g, blank)
  let text = markup
  for (let i = 0; i < 4; i++) text = text.replace(/\{[^{}]*\}/g, blank)
  const found: string[] = []
  for (const m of text.matchAll(/>([^<>]*)</g)) {
    const s = m[1]!.replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ').trim()
    if (/[A-Za-z]{2,}/.test(s)) found.push(s)
  }
  for (const m of markup.matchAll(/\b(?:title|placeholder|aria-label|alt|label)="([^"{]*[A-Za-z]{2,}[^"]*)"/g)) found.push(m[1]!)
  for (const region of expressions(markup)) {
    for (const q of region.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g)) {
      const v = (q[1] ?? q[2] ?? q[3] ?? '').replace(/\$\{[^}]*\}/g, ' ')
      if (shown(v)) found.push(v.trim())
    }
  }
  return found.filter((s) => !ALLOWED.has(s))
}

describe('the components', () => {
  it('show no English outside the catalogue', () => {
    const files = svelteFiles(join(src, 'components')).concat(join(src, 'App.svelte'))
    expect(files.length).toBeGreaterThan(40)
    const left = files.flatMap((f) => untranslated(readFileSync(f, 'utf8')).map((s) => `${relative(src, f)}: ${s}`))
    expect(left, 'strings shown without t()').toEqual([])
  })

  it('finds text, attributes and quoted words that skip t()', () => {
    const c = `<script>const x = 'Not markup'</script>
<p title="Close the panel">Hello there</p>
<b>{busy ? 'Saving…' : 'Save'}</b>
<i class={on ? 'a b' : ''}>{t('common.save')}</i>
<code>tofu serve</code>`
    expect(untranslated(c)).toEqual(['Hello there', 'Close the panel', 'Saving…', 'Save'])
  })
})
