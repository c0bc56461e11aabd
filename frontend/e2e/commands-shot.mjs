// The conversation's own commands, the plan, the languages and the theme, against `tofu serve`
// with the scripted model (script: a todo_write for "plan the fix", a summary for the
// summariser, short replies otherwise) and a workspace holding src/parser.go, src/lexer.go,
// docs/parsing.md and ignored build/ and *.log files:
//   TOFU_URL=… TOFU_E2E_WORKSPACE=… node e2e/commands-shot.mjs OUT_DIR
// (Go: TestCommandsEndToEnd, OUT_DIR = the folder of TOFU_E2E_SHOT, build/test-shots/commands/.)
// Screenshots: commands-menu, file-mention, plan, compact, cost, lang-zh, lang-ja, theme-light,
// theme-dark (.png). Fails when a step does not show what it should.
import { dirname } from 'node:path'
import { check, openPage, requireEnv, step } from './lib.mjs'

requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')
const url = process.env.TOFU_URL
const workspace = process.env.TOFU_E2E_WORKSPACE
const out = process.argv[2] ?? (process.env.TOFU_E2E_SHOT ? dirname(process.env.TOFU_E2E_SHOT) : '.')
const { browser, page, pageErrors, tid } = await openPage({ width: 1200, height: 820 })
const shot = (name) => page.screenshot({ path: `${out}/${name}.png` })
const composer = () => tid('composer')

async function send(text) {
  await composer().fill(text)
  await composer().press('Enter')
}

// Latin-script words the UI itself shows in root (text, placeholders, titles), leaving out what
// the user and the model wrote, conversation titles, paths and code: in Chinese or Japanese,
// only the names in KEPT may be left.
const KEPT = new Set(['Tofu', 'Ollama', 'MCP', 'API', 'URL', 'JSON', 'Markdown', 'Matrix', 'Telegram', 'Slack', 'Chromium', 'arXiv', 'Claude', 'Desktop', 'Cursor', 'VS', 'Code',
  'OpenAI', 'Anthropic', 'SearXNG', 'Brave', 'Search', 'BM25', 'Enter', 'Esc', 'Shift', 'Ctrl', 'Alt', 'End', 'X11', 'Cron', 'Agent', 'Skills', 'DuckDuckGo', 'HTML', 'PDF', 'bubblewrap', 'sandbox-exec', 'landlock'])
async function englishLeft(rootSelector) {
  return page.evaluate(({ rootSelector, kept }) => {
    const root = document.querySelector(rootSelector)
    if (!root) return [`no ${rootSelector}`]
    // What the user or the model wrote: messages, the conversation's title, the plan's items, the
    // /compact instruction quoted in the marker's title; and names: paths, the model.
    const theirs = 'code, kbd, pre, textarea, input, select, h1, .markdown, [data-testid="message-user"], [data-testid="message-assistant"] .body, [data-testid="tool-card"], [data-testid="plan-item"], [data-testid="compaction-marker"], .title, .time, [data-testid="workspace-chip"], [data-testid="model-picker"]'
    const left = new Set()
    const add = (text, where) => {
      // A word joined to a dot, slash, colon, underscore, hyphen or digit is a name: a file,
      // a path, a URL, a model (qwen3:8b), a tool (web_search), a host.
      const words = text.replace(/\S*[./:_@\\\d-]\S*/g, ' ').match(/[A-Za-z][A-Za-z'’]{2,}/g) ?? []
      for (const w of words) if (!kept.includes(w)) left.add(`${w} (${where})`)
    }
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement
      if (!el || el.closest(theirs) || !el.checkVisibility()) continue
      add(n.textContent ?? '', el.tagName.toLowerCase() + (el.dataset.testid ? `#${el.dataset.testid}` : ''))
    }
    for (const el of root.querySelectorAll('[placeholder], [title], [aria-label]')) {
      if (el.closest(theirs) || !el.checkVisibility()) continue
      for (const a of ['placeholder', 'title', 'aria-label']) if (el.getAttribute(a)) add(el.getAttribute(a), `${a} of ${el.tagName.toLowerCase()}`)
    }
    return [...left]
  }, { rootSelector, kept: [...KEPT] })
}

async function replies(n) {
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="message-assistant"][data-streaming="false"]').length >= n, n)
}

try {
  await step('open, a conversation in the workspace', async () => {
    await page.goto(url)
    await page.evaluate(() => {
      localStorage.setItem('tofu.locale', 'en')
      localStorage.setItem('tofu.theme', 'light')
    })
    await page.reload()
    await tid('new-conversation').click()
    await tid('workspace-chip').click()
    await tid('workspace-input').fill(workspace)
    await tid('workspace-input').press('Enter')
    await page.locator(`[data-testid="workspace-chip"][data-workspace="${workspace}"]`).waitFor()
  })

  await step('two exchanges', async () => {
    await send('explain the layout')
    await replies(1)
    await send('and where are the docs?')
    await replies(2)
  })
  const calls = 4 // the two replies, the plan's two steps

  await step('the plan: a checklist under its card and pinned', async () => {
    await send('plan the fix')
    await page.locator('[data-testid="tool-card"][data-tool="todo_write"] [data-testid="plan-checklist"]').waitFor()
    await replies(3)
    const statuses = await page.locator('[data-testid="plan-pinned"] [data-testid="plan-item"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))
    check(statuses.join(',') === 'done,in_progress,pending,pending', `pinned plan: ${statuses}`)
    check((await tid('plan-pinned').locator('[data-testid="plan-progress"]').textContent()) === '1 of 4 done', 'plan progress')
    await shot('plan')
  })

  await step('"/" lists the commands', async () => {
    await composer().fill('/')
    await tid('command-menu').waitFor()
    const names = await tid('command-option').evaluateAll((els) => els.map((e) => e.getAttribute('data-command')))
    check(names.join(',') === 'compact,model,clear,cost', `commands: ${names}`)
    await shot('commands-menu')
  })

  await step('@ lists the workspace files, fuzzy, without ignored ones', async () => {
    await composer().fill('look at @par')
    await tid('file-menu').waitFor()
    const paths = await tid('file-option').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))
    check(paths[0] === 'src/parser.go' && paths.includes('docs/parsing.md') && !paths.some((p) => p.startsWith('build/') || p.endsWith('.log')), `files: ${paths}`)
    await shot('file-mention')
    await composer().press('Enter')
    await page.waitForFunction(() => (document.querySelector('[data-testid="composer"]')?.value ?? '').includes('@src/parser.go'))
    await composer().fill('')
  })

  await step('/cost says the tokens so far', async () => {
    await send('/cost')
    const text = await tid('command-output').textContent()
    check(new RegExp(`^${calls} model calls · [\\d,]+ tokens in`).test(text ?? ''), `cost: ${text}`)
    await shot('cost')
  })

  await step('/compact with an instruction', async () => {
    await send('/compact keep the file names and the plan')
    await tid('compaction-marker').waitFor()
    const marker = await tid('compaction-marker').textContent()
    check(/4 messages summarized/.test(marker ?? ''), `compaction: ${marker}`)
    await shot('compact')
  })

  for (const [lang, want] of [['zh', '新建对话'], ['ja', '新しい会話']]) {
    await step(`the UI in ${lang}`, async () => {
      await tid('settings-open').click()
      await tid('settings-language').selectOption(lang)
      // The catalogue loads when chosen: the sidebar changes once it is here.
      await page.locator('[data-testid="new-conversation"]', { hasText: want }).waitFor()
      await tid('settings-language').scrollIntoViewIfNeeded()
      await shot(`lang-${lang}-settings`)
      const inSettings = await englishLeft('[data-testid="settings-dialog"]')
      check(inSettings.length === 0, `English left in Settings (${lang}): ${inSettings.join(', ')}`)
      await page.keyboard.press('Escape')
      await tid('settings-dialog').waitFor({ state: 'hidden' })
      await composer().fill('')
      await shot(`lang-${lang}`)
      const inWindow = await englishLeft('body')
      check(inWindow.length === 0, `English left in the window (${lang}): ${inWindow.join(', ')}`)
    })
  }

  for (const theme of ['dark', 'light']) {
    await step(`the ${theme} theme`, async () => {
      await tid('settings-open').click()
      await tid('settings-language').selectOption('en')
      await tid('settings-theme').selectOption(theme)
      check((await page.evaluate(() => document.documentElement.dataset.theme)) === theme, `data-theme ${theme}`)
      await page.keyboard.press('Escape')
      await tid('settings-dialog').waitFor({ state: 'hidden' })
      await page.reload()
      await tid('composer').waitFor()
      check((await page.evaluate(() => document.documentElement.dataset.theme)) === theme, `${theme} kept after a reload`)
      await shot(`theme-${theme}`)
    })
  }
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`)
} catch (err) {
  console.error(`FAIL ${err.message}`)
  if (pageErrors.length) console.error(`page errors: ${pageErrors.join('; ')}`)
  await shot('commands-failure').catch(() => {})
  await browser.close()
  process.exit(1)
}
await browser.close()
