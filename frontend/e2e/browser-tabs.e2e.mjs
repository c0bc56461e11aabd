// End-to-end check that the live browser view follows the session's active tab
// (TestBrowserLiveFollowsTabsEndToEnd): the scripted model opens TodoMVC and a second page in
// a new tab; the live view, started then, shows tab t2; after the model switches back to t1 in
// the next turn, the same live view shows t1.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_WORKSPACE=/tmp/ws \
//   [TOFU_E2E_SHOT=shot.png] [CHROMIUM=/usr/bin/chromium] node e2e/browser-tabs.e2e.mjs
import { check, step, openPage, runScript, requireEnv, setWorkspace } from './lib.mjs'

const url = process.env.TOFU_URL
const workspace = process.env.TOFU_E2E_WORKSPACE
const shot = process.env.TOFU_E2E_SHOT
requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 1000, timeout: 60000 })

await runScript('browser-tabs e2e', { browser, page, pageErrors }, async () => {
  await step('open the app, create a conversation, set the workspace', async () => {
    await page.goto(url)
    await tid('new-conversation').click()
    await setWorkspace(page, workspace)
  })
  await step('the model opens two pages, the second in a new tab', async () => {
    await tid('composer').fill('Open the two pages')
    await tid('composer').press('Enter')
    await page.getByText('Both pages are open.').waitFor()
  })
  await step('the live view shows the active tab, t2', async () => {
    await tid('browser-live').click()
    await tid('browser-live-frame').waitFor()
    await page.locator('[data-testid="browser-live-tab"]', { hasText: 'tab t2' }).waitFor()
  })
  await step('the model switches back to t1: the live view follows', async () => {
    await tid('composer').fill('Now switch back to the first page')
    await tid('composer').press('Enter')
    await page.getByText('Back on the first tab.').waitFor()
    await page.locator('[data-testid="browser-live-tab"]', { hasText: 'tab t1' }).waitFor()
    const src = await tid('browser-live-frame').getAttribute('src')
    check((src ?? '').startsWith('data:image/jpeg;base64,/9j/'), 'the live frame is not a JPEG')
    await page.evaluate(() => document.querySelector('[data-testid="browser-panel"]')?.scrollIntoView())
  })
  if (shot) await page.screenshot({ path: shot, fullPage: true })
}, { failShot: shot, fullPage: true })
