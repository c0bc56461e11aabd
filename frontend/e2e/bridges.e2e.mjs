// End-to-end check of Settings → Chat bridges against a running `tofu serve` (fresh config,
// TOFU_KEYRING=off) and a loopback Telegram Bot API, driven in headless Chromium.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T TOFU_E2E_TELEGRAM_URL=http://127.0.0.1:P \
//   TOFU_E2E_TELEGRAM_TOKEN=123456:… [TOFU_E2E_SHOT=shot.png] node e2e/bridges.e2e.mjs
//
// Steps: no bridges → add one with a bad name (refused, the form stays) → add "phone" off with a
// wrong token → Test says the API's error → On without an allowed user is refused with the
// reason → Edit: the right token, the owner allowed, on (screenshot) → Connected, Test says the bot's name →
// a second bridge whose API does not answer says offline and when it retries → the tokens are
// nowhere on the page → screenshot → the owner's chat (sent by the Go test) shows in the sidebar
// marked Telegram → screenshot. Exit 0 on success, 1 with a message on failure.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const apiURL = process.env.TOFU_E2E_TELEGRAM_URL
const token = process.env.TOFU_E2E_TELEGRAM_TOKEN
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)
const WRONG = '999999:wrong-token'

requireEnv('TOFU_URL', 'TOFU_E2E_TELEGRAM_URL', 'TOFU_E2E_TELEGRAM_TOKEN')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 1000, timeout })
const dialog = () => tid('settings-dialog')
const row = (name) => dialog().locator(`[data-testid="bridge-row"][data-name="${name}"]`)
const form = () => tid('bridge-form')

async function waitText(locator, re, what) {
  try {
    await locator.filter({ hasText: re }).waitFor({ state: 'visible' })
  } catch {
    throw new Error(`${what}: ${JSON.stringify(await locator.innerText().catch(() => '(not shown)'))}`)
  }
}

async function fill(fields) {
  for (const [id, value] of Object.entries(fields)) await tid(id).fill(value)
}

await runScript('bridges end-to-end', { browser, page, pageErrors }, async () => {
  await step('open Settings at Bridges: none set up', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app could not reach the backend')
    await tid('settings-open').click()
    await dialog().waitFor({ state: 'visible' })
    await tid('settings-nav-bridges').click()
    await tid('bridges-empty').waitFor({ state: 'visible' })
  })

  await step('a name with a space is refused, the form stays', async () => {
    await tid('bridge-add').click()
    await form().waitFor({ state: 'visible' })
    await tid('bridge-platform').selectOption('telegram')
    await tid('bridge-field-api').waitFor({ state: 'visible' })
    check((await tid('bridge-token').getAttribute('type')) === 'password', 'the token field is not a password field')
    await fill({ 'bridge-name': 'my phone', 'bridge-field-api': apiURL, 'bridge-token': WRONG })
    await tid('bridge-save').click()
    await waitText(tid('bridge-problem'), /no spaces/, 'the bad name was not refused')
    check(await form().isVisible(), 'the form closed on a refused name')
  })

  await step('added off, with a wrong token: Test says the API refused it', async () => {
    await fill({ 'bridge-name': 'phone' })
    await tid('bridge-save').click()
    await form().waitFor({ state: 'hidden' })
    await waitText(row('phone').getByTestId('bridge-state'), /^Off$/, 'the new bridge is not shown off')
    await row('phone').getByTestId('bridge-test').click()
    await waitText(row('phone').getByTestId('bridge-note'), /Unauthorized/, 'Test with a wrong token did not say the API refused it')
  })

  await step('On without an allowed user is refused with the reason', async () => {
    await row('phone').getByTestId('bridge-on').click()
    await waitText(row('phone').getByTestId('bridge-note'), /List the user ids allowed/, 'turning on without allowed users was not refused')
    check(!(await row('phone').getByTestId('bridge-on').isChecked()), 'the switch stayed on')
    await waitText(row('phone').getByTestId('bridge-state'), /^Off$/, 'the bridge is not off')
  })

  await step('edited: the right token, the owner allowed, on → connected; Test names the bot', async () => {
    await row('phone').getByTestId('bridge-edit').click()
    await form().waitFor({ state: 'visible' })
    check((await tid('bridge-token').inputValue()) === '', 'the kept token was filled back into the form')
    check(/kept/.test((await tid('bridge-token').getAttribute('placeholder')) ?? ''), 'the token field does not say one is kept')
    await fill({ 'bridge-token': token, 'bridge-allowed-input': '1001' })
    await tid('bridge-form-on').check()
    if (shot) {
      await form().scrollIntoViewIfNeeded()
      await page.screenshot({ path: shot.replace(/(\.png)?$/, '-form.png') })
    }
    await tid('bridge-save').click()
    await form().waitFor({ state: 'hidden' })
    await waitText(row('phone').getByTestId('bridge-state'), /^Connected/, 'the bridge did not connect')
    await waitText(row('phone').getByTestId('bridge-allowed'), /^1001$/, 'the allowed user is not shown')
    await row('phone').getByTestId('bridge-test').click()
    await waitText(row('phone').getByTestId('bridge-note'), /Tofu speaks as @tofu_test_bot/, 'Test did not name the bot')
  })

  await step('a bridge whose API does not answer says offline and when it retries', async () => {
    await tid('bridge-add').click()
    await tid('bridge-platform').selectOption('telegram')
    await fill({ 'bridge-name': 'lab', 'bridge-field-api': 'http://127.0.0.1:9', 'bridge-token': '123:lab-token', 'bridge-allowed-input': '1001, 2002' })
    await tid('bridge-form-on').check()
    await tid('bridge-save').click()
    await form().waitFor({ state: 'hidden' })
    await waitText(row('lab').getByTestId('bridge-state'), /^Offline: .*refused.* · trying again (in \d+ s|now)$/, 'the unreachable bridge does not say offline')
  })

  await step('no token on the page; screenshot of the section', async () => {
    const text = await dialog().innerText()
    check(!text.includes(token) && !text.includes('lab-token') && !text.includes(WRONG), 'a token is shown on the page')
    const values = await dialog().locator('input').evaluateAll((els) => els.map((e) => e.value))
    check(!values.some((v) => v.includes(token)), 'a token is left in a field')
    if (shot) {
      await tid('settings-nav-bridges').click()
      await page.screenshot({ path: shot })
    }
  })

  await step('the owner’s chat shows in the sidebar, marked Telegram', async () => {
    await page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'hidden' })
    const mark = tid('session-platform').filter({ hasText: 'Telegram' })
    for (let i = 0; i < 20 && (await mark.count()) === 0; i++) {
      await page.waitForTimeout(500)
      if (i % 4 === 3) await page.reload()
    }
    await mark.first().waitFor({ state: 'visible' })
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-sidebar.png') })
  })
}, { failShot: shot?.replace(/(\.png)?$/, '-failed.png') })
