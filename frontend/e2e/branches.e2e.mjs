// End-to-end check of versions (branches) against `tofu serve` with a scripted model that numbers
// its replies ("Answer N to: …"): send → Edit the message → the edited version and its reply
// show, the old one does not, with 2/2 under the message → Regenerate twice → 3/3 under the
// reply → ‹ shows 2/3 → the message's ‹ shows the first version (1/2) and › comes back (2/2).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T [TOFU_E2E_SHOT=shot.png] node e2e/branches.e2e.mjs
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)
requireEnv('TOFU_URL')

const { browser, page, pageErrors, tid } = await openPage({ width: 1100, height: 760, timeout })

const replies = () => page.locator('[data-testid="message-assistant"][data-streaming="false"]')
const userMsg = () => tid('message-user')
async function idle() {
  await page.waitForFunction(() => !document.querySelector('[data-testid="message-assistant"][data-streaming="true"]'))
}
async function shows(text) {
  await page.locator('[data-testid="message-assistant"][data-streaming="false"]', { hasText: text }).first().waitFor()
  await idle()
}
const transcript = () => tid('chat-pane').innerText()


await runScript('branches e2e', { browser, page, pageErrors }, async () => {
  await step('open the app and send a message', async () => {
    await page.goto(url)
    await tid('new-conversation').click()
    await tid('composer').fill('tell me about apples')
    await tid('composer').press('Enter')
    await shows('Answer 1 to: tell me about apples')
  })

  await step('edit the message: the new version and its reply replace the old on screen', async () => {
    await userMsg().first().hover()
    await tid('message-edit').first().click()
    await tid('edit-text').fill('tell me about bananas')
    await tid('edit-save').click()
    await shows('Answer 2 to: tell me about bananas')
    const text = await transcript()
    check(!text.includes('apples'), `the old version is still shown: ${JSON.stringify(text.slice(0, 400))}`)
    const nav = await userMsg().first().getByTestId('branch-index').innerText()
    check(nav === '2/2', `the edited message shows ${JSON.stringify(nav)}, want 2/2`)
  })

  await step('regenerate twice: the reply shows 3/3', async () => {
    await tid('message-regenerate').click()
    await shows('Answer 3 to: tell me about bananas')
    await tid('message-regenerate').click()
    await shows('Answer 4 to: tell me about bananas')
    const nav = await replies().first().getByTestId('branch-index').innerText()
    check(nav === '3/3', `the regenerated reply shows ${JSON.stringify(nav)}, want 3/3`)
    check((await replies().count()) === 1, 'more than one reply is shown')
  })

  await step('‹ on the reply shows the second version (2/3)', async () => {
    await replies().first().getByTestId('branch-prev').click()
    await shows('Answer 3 to: tell me about bananas')
    const nav = await replies().first().getByTestId('branch-index').innerText()
    check(nav === '2/3', `the reply shows ${JSON.stringify(nav)}, want 2/3`)
    if (shot) await page.screenshot({ path: shot })
  })

  await step('switch the message 2/2 → 1/2 → 2/2', async () => {
    await userMsg().first().getByTestId('branch-prev').click()
    await shows('Answer 1 to: tell me about apples')
    let nav = await userMsg().first().getByTestId('branch-index').innerText()
    check(nav === '1/2', `the first version shows ${JSON.stringify(nav)}, want 1/2`)
    check(!(await transcript()).includes('bananas'), 'the edited version is still shown')
    await userMsg().first().getByTestId('branch-next').click()
    await page.locator('[data-testid="message-user"]', { hasText: 'bananas' }).waitFor()
    nav = await userMsg().first().getByTestId('branch-index').innerText()
    check(nav === '2/2', `back on the edit: ${JSON.stringify(nav)}, want 2/2`)
  })

  await step('reload: the active version is kept', async () => {
    await page.reload()
    await page.locator('[data-testid="session-item"] button').first().click()
    await page.locator('[data-testid="message-user"]', { hasText: 'bananas' }).waitFor()
    check(!(await transcript()).includes('apples'), 'after reload another version shows')
  })

}, { failShot: '/tmp/branches-fail.png' })
