// End-to-end check of the browser tool cards against a running `tofu serve` whose model is
// scripted to drive TodoMVC (TestBrowserCardsEndToEnd): navigate, add three todos, complete
// one, filter; every browser card shows a thumbnail, the page's title and URL.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_WORKSPACE=/tmp/ws \
//   [TOFU_E2E_SHOT=shot.png] [CHROMIUM=/usr/bin/chromium] node e2e/browser.e2e.mjs
import { check, step, openPage, runScript, requireEnv, setWorkspace } from './lib.mjs'

const url = process.env.TOFU_URL
const workspace = process.env.TOFU_E2E_WORKSPACE
const shot = process.env.TOFU_E2E_SHOT
requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 1000, timeout: 60000 })

await runScript('browser e2e', { browser, page, pageErrors }, async () => {
  await step('open the app, create a conversation, set the workspace', async () => {
    await page.goto(url)
    await tid('new-conversation').click()
    await setWorkspace(page, workspace)
  })
  await step('ask: the model drives TodoMVC and finishes', async () => {
    await tid('composer').fill('Add three todos to TodoMVC, complete the second, show the active ones')
    await tid('composer').press('Enter')
    await page.getByText('Done: two todos are active.').waitFor()
  })
  await step('each browser card shows the page after it', async () => {
    const cards = page.locator('[data-testid="tool-card"][data-tool^="browser_"]')
    check((await cards.count()) === 3, `${await cards.count()} browser cards, want 3`)
    check((await page.locator('[data-testid="browser-thumb"]').count()) === 3, 'a browser card has no thumbnail')
    const last = await cards.nth(2).innerText()
    check(last.includes('click link "Active"') && last.includes('#/active') && last.includes('TodoMVC: React'), `the last card says: ${last}`)
  })
  await step('the live view shows the tab; take over and hand back', async () => {
    await tid('browser-live').click()
    await tid('browser-live-frame').waitFor()
    const src = await tid('browser-live-frame').getAttribute('src')
    check((src ?? '').startsWith('data:image/jpeg;base64,/9j/'), 'the live frame is not a JPEG')
    await tid('browser-takeover').check()
    await tid('browser-type').waitFor()
    // Scroll the page to the top of the live frame, where the new-todo field is.
    await page.evaluate(() => document.querySelector('[data-testid="browser-panel"]')?.scrollIntoView())
  })
  if (shot) await page.screenshot({ path: shot, fullPage: true })
}, { failShot: shot, fullPage: true })
