// End-to-end check of the sidebar against `tofu serve` (TestSidebarEndToEnd), with three
// conversations made beforehand ("Quokkas", "Tides", "Math"): folders (create, drag a
// conversation in, rename), pin and duplicate from a conversation's menu by keyboard,
// reference one conversation in another, delete with Undo, delete for good, math rendered
// (a radical's SVG included).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T [TOFU_E2E_SHOT=shot.png] node e2e/sidebar.e2e.mjs
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)
requireEnv('TOFU_URL')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout })
const row = (title) => page.locator('[data-testid="session-item"]', { has: page.locator('.title', { hasText: new RegExp(`^${title}$`) }) })
const folder = (name) => page.locator(`[data-testid="folder"][data-folder="${name}"]`)
const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))
// The chunks of KaTeX and highlight.js the page has fetched (file names): each is loaded by the
// first formula or code block shown (lib/math.ts, lib/highlight.ts).
const chunks = () => page.evaluate(() =>
  performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()).filter((n) => /^(katex|hljs)-.*\.(js|css)/.test(n)))


await runScript('sidebar e2e', { browser, page, pageErrors }, async () => {
  await step('open the app: ten conversations, no folder', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="session-item"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app could not reach the backend')
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-item"]').length === 10)
  })

  await step('at 900×620 the sidebar shows at least 8 conversations, under no "Folders" heading', async () => {
    // Regression (issue 36): Memory, My Day, Schedule, the paper drop zone and the arXiv box
    // left room for 2.5 conversations, listed under "FOLDERS" with no folder.
    await page.setViewportSize({ width: 900, height: 620 })
    await page.waitForTimeout(100)
    const seen = await page.evaluate(() => {
      const list = document.querySelector('nav.list').getBoundingClientRect()
      return [...document.querySelectorAll('[data-testid="session-item"]')].filter((r) => {
        const b = r.getBoundingClientRect()
        return b.height > 0 && b.top >= list.top - 1 && b.bottom <= list.bottom + 1
      }).length
    })
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-900x620.png') })
    check(seen >= 8, `${seen} conversations fit in the sidebar at 900×620`)
    check((await tid('folders-heading').count()) === 0, 'a "Folders" heading with no folder')
  })

  await step('search keeps the panel buttons in place and shows snippets without Markdown', async () => {
    const before = await tid('myday-open').boundingBox()
    await tid('history-search').fill('wombat')
    await page.locator('[data-testid="history-hit"]', { hasText: 'Markdown notes' }).first().waitFor()
    const after = await tid('myday-open').boundingBox()
    check(Math.abs(before.y - after.y) < 1, `My Day moved from y=${before.y} to y=${after.y} when searching`)
    const snippets = await page.locator('[data-testid="history-hit"] .snippet').allInnerTexts()
    check(snippets.some((t) => t.includes('find')), `snippets: ${snippets.join(' | ')}`)
    check(!snippets.some((t) => /\*\*|```/.test(t)), `a snippet shows Markdown marks: ${snippets.join(' | ')}`)
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-search.png') })
    await tid('history-search').press('Escape')
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  await step('the paper library folds; the arXiv box keeps what was typed when it fails', async () => {
    // Folded by default once there are conversations, so they keep the sidebar's height.
    check((await tid('paper-arxiv').count()) === 0, 'the paper library is open with ten conversations')
    await tid('papers-toggle').click()
    await tid('paper-arxiv').fill('not-an-arxiv-id')
    await tid('paper-arxiv').press('Enter')
    await tid('paper-error').waitFor()
    const kept = await tid('paper-arxiv').inputValue()
    check(kept === 'not-an-arxiv-id', `the arXiv box was cleared by its error: ${JSON.stringify(kept)}`)
    await tid('paper-error').getByRole('button', { name: 'Dismiss' }).click()
    await tid('paper-arxiv').fill('')
    await tid('papers-toggle').click()
    await tid('paper-arxiv').waitFor({ state: 'detached' })
  })

  await step('highlight.js waits for the first code block', async () => {
    // The page opens on "Math" (the latest): it shows formulas and no code. Frames after its
    // first paint it has fetched KaTeX, which the formulas asked for, and not highlight.js.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 500))))
    const loaded = await chunks()
    check(!loaded.some((n) => n.startsWith('hljs-')), `highlight.js was fetched with no code on screen: ${loaded.join(', ')}`)
  })

  await step('create a folder and drag a conversation into it', async () => {
    await tid('folder-new').click()
    await tid('folder-name-input').fill('Research')
    await tid('folder-name-input').press('Enter')
    await folder('Research').waitFor()
    await row('Quokkas').dragTo(folder('Research'))
    await folder('Research').locator('[data-testid="session-item"]', { hasText: 'Quokkas' }).waitFor()
  })

  await step('rename the folder: its conversation goes with it', async () => {
    await folder('Research').locator('.head').hover()
    await folder('Research').getByTestId('folder-rename').click()
    await tid('folder-name-input').fill('Reading')
    await tid('folder-name-input').press('Enter')
    await folder('Reading').locator('[data-testid="session-item"]', { hasText: 'Quokkas' }).waitFor()
  })

  await step('pin by keyboard from the conversation menu', async () => {
    await row('Tides').hover()
    await row('Tides').getByTestId('session-menu').focus()
    await page.keyboard.press('Enter')
    await tid('session-menu-list').waitFor()
    check((await focused()) === 'session-pin', `focus is on ${await focused()}, not Pin`)
    await page.keyboard.press('Enter')
    await page.locator('[data-testid="session-item"][data-pinned="true"]', { hasText: 'Tides' }).waitFor()
  })

  await step('duplicate: a copy opens', async () => {
    await row('Tides').hover()
    await row('Tides').getByTestId('session-menu').click()
    await tid('session-duplicate').click()
    await page.locator('[data-testid="session-item"].active', { hasText: 'Copy of Tides' }).waitFor()
    await page.locator('[data-testid="message-user"]', { hasText: 'when is high tide' }).waitFor()
  })

  await step('reference another conversation in this one', async () => {
    await row('Quokkas').hover()
    await row('Quokkas').getByTestId('session-menu').click()
    await tid('session-reference').click()
    await page.waitForFunction(() => document.querySelector('[data-testid="composer"]')?.value.includes('<referenced-conversation title="Quokkas"'))
    const text = await tid('composer').inputValue()
    check(text.includes('User: where do quokkas live'), `the reference does not carry the messages: ${text}`)
    await tid('composer').fill('')
  })

  await step('an @-mention references a conversation from the composer', async () => {
    await tid('composer').click()
    await page.keyboard.type('compare with @quok')
    await tid('mention-menu').waitFor()
    check((await tid('mention-option').count()) === 1, 'the mention offers more than the one match')
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => document.querySelector('[data-testid="composer"]')?.value.startsWith('compare with <referenced-conversation title="Quokkas"'))
    await tid('mention-menu').waitFor({ state: 'detached' })
    await tid('composer').fill('')
  })

  await step('math renders with KaTeX', async () => {
    await row('Math').locator('.pick').click()
    await page.locator('.math-display .katex-display').first().waitFor()
    check((await page.locator('.math-inline .katex').count()) >= 1, 'no inline math')
    check((await page.locator('.math').count()) === 3, 'prices were typeset as math')
    // KaTeX draws a radical sign as SVG: the math sanitizer must keep it.
    const radical = page.locator('.math-display .katex .hide-tail svg path')
    check((await radical.count()) === 1, 'the radical sign of \\sqrt was not drawn')
    check((await radical.evaluate((p) => p.getBoundingClientRect().width)) > 0, 'the radical sign has no width')
    check((await chunks()).some((n) => n.startsWith('katex-')), 'the formulas typeset without fetching KaTeX')
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-math.png') })
  })

  await step('duplicate from a reply: the copy opens, linked to its source', async () => {
    await tid('message-duplicate').first().click()
    await page.locator('[data-testid="session-item"].active', { hasText: 'Copy of Math' }).waitFor()
    await page.locator('.math-display .katex-display').first().waitFor()
    await row('Math').locator('.pick').click()
    await page.locator('[data-testid="session-item"].active .title', { hasText: /^Math$/ }).waitFor()
  })

  await step('delete with Undo, then delete for good', async () => {
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-folders.png') })
    await row('Quokkas').hover()
    await row('Quokkas').getByTestId('session-menu').click()
    await tid('session-delete').click()
    await tid('toast').waitFor()
    check((await tid('toast').innerText()).includes('Deleted “Quokkas”'), 'the toast does not name the conversation')
    await row('Quokkas').waitFor({ state: 'detached' })
    await tid('toast-action').click()
    await folder('Reading').locator('[data-testid="session-item"]', { hasText: 'Quokkas' }).waitFor()
    await row('Quokkas').hover()
    await row('Quokkas').getByTestId('session-menu').click()
    await tid('session-delete').click()
    await row('Quokkas').waitFor({ state: 'detached' })
  })

  await step('delete the folder: it goes, conversations stay', async () => {
    await row('Math').dragTo(folder('Reading'))
    await folder('Reading').locator('[data-testid="session-item"] .title', { hasText: /^Math$/ }).waitFor()
    await folder('Reading').locator('.head').hover()
    await folder('Reading').getByTestId('folder-delete').click()
    await folder('Reading').waitFor({ state: 'detached' })
    await tid('folder-none').locator('[data-testid="session-item"] .title', { hasText: /^Math$/ }).waitFor()
  })

}, { shot })
