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
  await step('the empty state without Ollama', async () => {
    await page.goto(url)
    await tid('empty-state').waitFor()
    await tid('banner').waitFor()
    await page.screenshot({ path: `${out}/${label}-no-ollama.png` })
  })
  if (label === 'after') {
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
