// The first run against `tofu serve` with no Ollama, then "Try the demo": the scripted model
// works in the demo's scratch folder — a read (a tool card), a command that asks first (the
// approval card, allowed here), its output — Settings list the demo provider while it runs,
// and Stop demo ends it. Screenshots at each stage:
//   node e2e/firstrun-shot.mjs URL OUT_DIR [before]
// TestFirstRunEndToEnd passes TOFU_URL and TOFU_E2E_SHOT instead (the shots go beside it).
import { dirname } from 'node:path'
import { check, openPage, step } from './lib.mjs'

const url = process.argv[2] ?? process.env.TOFU_URL
const out = process.argv[3] ?? dirname(process.env.TOFU_E2E_SHOT ?? './x')
const label = process.argv[4] ?? 'after'
const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 860 })
let code = 0
try {
  await step('the empty state without Ollama says it once', async () => {
    await page.goto(url)
    await tid('empty-state').waitFor()
    await tid('first-run').waitFor()
    await page.screenshot({ path: `${out}/${label}-no-ollama.png` })
    if (label !== 'after') return
    // Regression (issue 36): the banner repeated the first-run help, with three Refresh
    // controls and the Enter / Shift+Enter hint twice.
    check((await tid('banner').count()) === 0, 'the banner repeats the first-run help')
    const refresh = await page.getByRole('button', { name: /^Refresh$/ }).count()
    check(refresh === 1, `${refresh} Refresh buttons in the window`)
    const enterHints = await page.locator('kbd', { hasText: /^Shift$/ }).count()
    check(enterHints === 1, `the Shift+Enter hint is shown ${enterHints} times`)
    const reason = await tid('first-run-reason').innerText()
    check(/Ollama is not running at http:\/\/127\.0\.0\.1:\d+/.test(reason), `the reason: ${reason}`)
  })
  if (label === 'after') {
    await step('sending anyway: the error in words, under one heading', async () => {
      await tid('composer').fill('hello?')
      await tid('composer').press('Enter')
      await tid('message-error').waitFor()
      const text = await tid('message-error-text').innerText()
      // With no model configured the turn stops before Ollama; with one, Go's "dial tcp …:
      // connection refused" becomes words (status.test.ts, errorWords).
      check(/^(No model is selected|Cannot reach Ollama at http:\/\/127\.0\.0\.1:\d+: nothing is listening there)/.test(text), `the error reads: ${text}`)
      check(!/dial tcp|Post "/.test(await tid('message-error').innerText()), 'Go\'s error text is shown unasked')
      // The banner stays only to say something else (Ollama is down; the turn had no model).
      const heading = await tid('message-error').locator('strong').first().innerText()
      if (await tid('banner').count()) {
        const banner = await tid('banner').innerText()
        check(!banner.includes(heading), `the banner repeats the error's heading "${heading}"`)
      }
      const refresh = await page.getByRole('button', { name: /^Refresh( models)?$/ }).count()
      check(refresh <= 2, `${refresh} Refresh controls (the picker's and one more at most)`)
      await page.screenshot({ path: `${out}/after-send-anyway.png` })
      await tid('new-conversation').click()
      await tid('first-run').waitFor()
    })
    await step('try the demo: a conversation in its scratch folder', async () => {
      await tid('first-run').waitFor()
      await tid('first-run-demo').click()
      await tid('demo-note').waitFor()
      await tid('banner').waitFor({ state: 'detached' })
      await page.locator('[data-testid="workspace-chip"]', { hasText: 'tofu-demo-' }).waitFor()
      await page.screenshot({ path: `${out}/after-demo-started.png` })
    })
    await step('a read, then a command that runs in the sandbox without asking', async () => {
      await tid('composer').fill('What can Tofu do?')
      await tid('composer').press('Enter')
      await page.locator('[data-testid="tool-card"][data-tool="read_files"][data-status="ok"]').waitFor()
      await page.getByText('The script ran.').first().waitFor()
      check((await tid('approval-card').count()) === 0, 'the demo asked although its command stays inside the sandbox')
      await page.getByText('Hello from the demo workspace').first().waitFor()
      await page.locator('[data-testid="tool-card"][data-tool="run_command"]').first().waitFor()
      await page.screenshot({ path: `${out}/after-demo-reply.png` })
    })
    await step('Settings list the demo provider while it runs', async () => {
      await tid('settings-open').click()
      await tid('settings-demo-provider').waitFor()
      const text = await tid('settings-demo-provider').innerText()
      check(text.includes('tofu-demo'), `the demo row: ${text}`)
      await page.screenshot({ path: `${out}/after-demo-settings.png` })
    })
    await step('Stop demo ends it: the configured provider is back', async () => {
      await tid('settings-demo-stop').click()
      await tid('settings-demo-provider').waitFor({ state: 'detached' })
      await page.keyboard.press('Escape')
      await tid('demo-note').waitFor({ state: 'detached' })
      await page.locator('[data-testid="workspace-chip"]', { hasText: 'tofu-demo-' }).waitFor({ state: 'detached' })
      await tid('banner').waitFor()
      // Regression (issue 36): the picker kept the demo's tofu-test:latest with a red dot.
      // Waited for (up to 5 s), not read at once: the picker follows Stop demo's answer.
      const picked = tid('model-picker').locator('option:checked')
      await picked
        .filter({ hasText: /^\s*No models\s*$/ })
        .waitFor({ state: 'attached', timeout: 5000 })
        .catch(async () => check(false, `the picker after Stop demo: ${await picked.innerText()}`))
      await page.screenshot({ path: `${out}/after-demo-stopped.png` })
    })
  }
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('\n')}`)
  console.log('ok')
} catch (e) {
  code = 1
  console.error(`FAIL ${e instanceof Error ? e.message : String(e)}`)
  await page.screenshot({ path: `${out}/failed.png` }).catch(() => {})
} finally {
  await browser.close()
}
process.exit(code)
