// End-to-end check of the Settings view against a running `tofu serve` with a fresh config
// directory (XDG_CONFIG_HOME) and TOFU_KEYRING=off, driven in headless Chromium.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  [TOFU_E2E_OPENAI_URL=http://127.0.0.1:P/v1] \
//   [TOFU_E2E_SHOT=shot.png] [TOFU_E2E_TIMEOUT_MS=30000] [CHROMIUM=/usr/bin/chromium] node e2e/settings.e2e.mjs
//
// Steps: open Settings → a bad context window cap is refused inline and nothing closes → add an
// OpenAI-type provider (base URL TOFU_E2E_OPENAI_URL, so nothing leaves the machine) with an API
// key → Save → reopen: the provider is there with "1 key stored" and the key is nowhere on the
// page → reload → still there. Exit 0 on success, 1 with a message on failure.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const openaiURL = process.env.TOFU_E2E_OPENAI_URL ?? ''
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)

const NAME = 'e2e-openai'
const KEY = 'sk-e2e-secret-0123456789'

requireEnv('TOFU_URL')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout })
const dialog = () => tid('settings-dialog')
const rows = () => dialog().getByTestId('settings-provider-row')

async function openSettings() {
  await tid('settings-open').click()
  await dialog().waitFor({ state: 'visible' })
}

async function rowNamed(name) {
  const n = await rows().count()
  for (let i = 0; i < n; i++) {
    const row = rows().nth(i)
    if ((await row.getByTestId('settings-provider-name').inputValue()) === name) return row
  }
  return null
}


await runScript('settings end-to-end', { browser, page, pageErrors }, async () => {
  await step('open the app', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app could not reach the backend')
  })

  await step('open Settings: one Ollama provider, the paths in the footer', async () => {
    await openSettings()
    check((await rows().count()) === 1, `expected the default provider only, found ${await rows().count()} rows`)
    const paths = await tid('settings-paths').innerText()
    check(/config\.json/.test(paths), `the footer does not show config.json: ${paths}`)
    check(/secrets\.json/.test(paths), `the footer does not say where keys are kept (TOFU_KEYRING=off): ${paths}`)
  })

  await step('sections: a navigation row, and Settings reopen at the top', async () => {
    // Regression (issue 36): one long modal with no navigation, reopened where it was scrolled.
    await tid('settings-nav-behaviour').click()
    const at = await page.evaluate(() => {
      const body = document.querySelector('[data-testid="settings-body"]')
      const h = document.getElementById('s-behaviour')
      return { scrolled: body.scrollTop, off: h.getBoundingClientRect().top - body.getBoundingClientRect().top }
    })
    check(at.scrolled > 0 && at.off < 120, `Behaviour is not at the top after its link: ${JSON.stringify(at)}`)
    check((await tid('settings-nav-behaviour').getAttribute('aria-current')) === 'true', 'the Behaviour link is not marked current')
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-nav.png') })
    await page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'hidden' })
    // The Settings button's tooltip must not stay over the dialog it opened.
    await tid('settings-open').hover()
    await tid('tooltip').waitFor()
    await openSettings()
    check((await tid('tooltip').count()) === 0, 'the Settings button\'s tooltip stays over the dialog')
    const top = await tid('settings-body').evaluate((b) => b.scrollTop)
    check(top === 0, `Settings reopened scrolled to ${top}`)
    check((await tid('settings-nav-providers').getAttribute('aria-current')) === 'true', 'Providers is not current on opening')
  })

  await step('an empty Ollama base URL shows what it means here, in words', async () => {
    const words = await rows().first().getByTestId('settings-base-url-empty').innerText()
    check(!/OLLAMA_HOST|else http/.test(words) && /^Leave empty to use the Ollama at http/.test(words), `the empty base URL hint: ${words}`)
    const field = rows().first().getByTestId('settings-base-url')
    const host = process.env.OLLAMA_HOST ?? ''
    const placeholder = (await field.getAttribute('placeholder')) ?? ''
    // The Go test points OLLAMA_HOST at its scripted model, never the built-in default.
    check(host !== '' && placeholder === host.replace(/\/+$/, ''), `placeholder ${JSON.stringify(placeholder)}, OLLAMA_HOST ${JSON.stringify(host)}`)
  })

  await step('a bad context window cap is refused inline', async () => {
    await tid('settings-context-cap').fill('100')
    await tid('settings-save').click()
    await tid('settings-error').waitFor({ state: 'visible' })
    check(await dialog().isVisible(), 'the dialog closed on invalid input')
    await tid('settings-context-cap').fill('')
  })

  await step('"Test connection" of an address nothing listens on shows the exact error', async () => {
    const row = rows().first()
    const field = row.getByTestId('settings-base-url')
    await field.fill('http://127.0.0.1:9') // the discard port: refused, offline
    await row.getByTestId('settings-test-connection').click()
    const result = row.getByTestId('settings-test-result')
    await result.waitFor()
    const text = await result.innerText()
    check((await result.getAttribute('data-ok')) === 'false' && text.includes('127.0.0.1:9'), `test connection of a closed port: ${text}`)
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-refused.png') })
    await field.fill('')
  })

  await step('add an OpenAI-type provider with a key', async () => {
    await tid('settings-add-provider').click()
    check((await rows().count()) === 2, 'no row was added')
    const row = rows().nth(1)
    await row.getByTestId('settings-provider-name').fill(NAME)
    await row.getByTestId('settings-provider-type').selectOption('openai')
    check((await row.getByTestId('settings-base-url').getAttribute('placeholder')) === 'https://api.openai.com/v1', 'the OpenAI base URL placeholder is missing')
    if (openaiURL) await row.getByTestId('settings-base-url').fill(openaiURL)
    const key = row.getByTestId('settings-api-key')
    check((await key.getAttribute('type')) === 'password', 'the API key field is not a password field')
    await key.fill(KEY)
    if (openaiURL) {
      // "Test connection" lists the models of the row as typed, before it is saved.
      await row.getByTestId('settings-test-connection').click()
      const result = row.getByTestId('settings-test-result')
      await result.waitFor()
      const text = await result.innerText()
      check((await result.getAttribute('data-ok')) === 'true' && /^Connected: \d+ models?$/.test(text), `test connection: ${text}`)
    }
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-edit.png') })
    await tid('settings-save').click()
    await dialog().waitFor({ state: 'hidden' })
  })

  await step('reopen: the provider and "1 key stored"', async () => {
    await openSettings()
    const row = await rowNamed(NAME)
    check(row, `no provider named ${NAME} after saving`)
    const status = await row.getByTestId('settings-key-status').innerText()
    check(/1 key stored/.test(status), `key status: ${status}`)
    check((await row.getByTestId('settings-provider-type').inputValue()) === 'openai', 'the type was not saved')
    check((await row.getByTestId('settings-api-key').count()) === 0, 'the key field is shown although a key is stored')
    const html = await page.content()
    check(!html.includes(KEY), 'the API key is on the page')
    if (shot) await page.screenshot({ path: shot })
  })

  await step('reload: still saved', async () => {
    await page.reload()
    await page.waitForSelector('[data-testid="new-conversation"]')
    await openSettings()
    const row = await rowNamed(NAME)
    check(row, 'the provider is gone after a reload')
    check(/1 key stored/.test(await row.getByTestId('settings-key-status').innerText()), 'the key count is gone after a reload')
    await page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'hidden' })
  })

  await step('commands: the sandbox is shown, unconfined is a choice', async () => {
    await openSettings()
    const box = tid('settings-unconfined')
    await box.scrollIntoViewIfNeeded()
    const label = await page.locator('#commands-label').innerText()
    check(/Sandbox: bubblewrap/.test(label), `the commands row does not show the sandbox: ${label}`)
    check(!(await box.isChecked()), 'commands are unconfined by default')
    check(/never sees your keys/.test(await tid('settings-commands-hint').innerText()), 'the sandbox hint is missing')
    await box.check()
    check(/read your keys/.test(await tid('settings-commands-hint').innerText()), 'no warning when commands are unconfined')
    if (shot) await page.locator('#commands-label').screenshot({ path: shot.replace(/(\.png)?$/, '-commands-label.png') })
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-commands.png') })
    await tid('settings-save').click()
    await dialog().waitFor({ state: 'hidden' })
  })

}, { failShot: shot })
