// End-to-end check of Settings' images and web search fields against `tofu serve`
// (TestToolSettingsEndToEnd): a fresh config directory, TOFU_KEYRING=off, and an
// OpenAI-compatible images API on loopback (TOFU_E2E_IMAGES_URL) that lists gpt-image-1 for
// one key. The browser fills the images provider and tests it, picks Brave Search without a key
// and a bad allowed host (both refused inline, nothing saved), fixes them, saves, reopens: the
// keys show masked only, and nowhere in full on the page.
//
//   TOFU_URL=… TOFU_E2E_IMAGES_URL=http://127.0.0.1:P [TOFU_E2E_SHOT=shot.png] node e2e/toolsettings.e2e.mjs
import { check, checkValue, step, openPage } from './lib.mjs'

const url = process.env.TOFU_URL
const imagesURL = process.env.TOFU_E2E_IMAGES_URL
const shot = process.env.TOFU_E2E_SHOT
const IMAGES_KEY = 'sk-img-e2e-0123456789'
const BRAVE_KEY = 'BSAe2ebravekey4242'
if (!url || !imagesURL) {
  console.error('e2e: set TOFU_URL and TOFU_E2E_IMAGES_URL')
  process.exit(2)
}
const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900 })
const dialog = () => tid('settings-dialog')
let code = 0
try {
  await step('open Settings', async () => {
    await page.goto(url)
    await tid('settings-open').click()
    await dialog().waitFor({ state: 'visible' })
    await tid('settings-tools').scrollIntoViewIfNeeded()
  })
  await step('the images provider: a wrong key is told with what to do, not as a raw body', async () => {
    await tid('settings-images-url').fill(imagesURL)
    await tid('settings-images-model').fill('gpt-image-1')
    await tid('settings-images-key').fill('sk-wrong')
    await tid('settings-images-test').click()
    const r = page.locator('[data-testid="settings-images-result"]')
    await r.waitFor()
    const want = 'images: bad request or key. Check the images API key in Settings → Images and web search.'
    check((await r.innerText()) === want, `a refused key: ${await r.innerText()}`)
    if (shot) await tid('settings-tools').screenshot({ path: shot.replace(/\.png$/, '-wrong-key.png') })
  })
  await step('the images provider: Test connection with the key typed', async () => {
    await tid('settings-images-key').fill(IMAGES_KEY)
    await tid('settings-images-test').click()
    const r = page.locator('[data-testid="settings-images-result"]')
    await r.waitFor()
    check((await r.innerText()).startsWith('Connected: gpt-image-1 is listed'), `test: ${await r.innerText()}`)
  })
  await step('Brave without a key and a URL as a host: refused inline, not saved', async () => {
    await tid('settings-search-brave').check({ force: true })
    await tid('settings-allow-hosts').fill('nas.local, http://wiki.lan')
    await tid('settings-save').click()
    await tid('settings-error').waitFor()
    const text = await tid('settings-tools').innerText()
    check(text.includes('Brave Search needs an API key') && text.includes('Not a host name or address: http://wiki.lan'), `hints: ${text}`)
    check(await dialog().isVisible(), 'the dialog closed on refused fields')
    if (shot) await tid('settings-tools').screenshot({ path: shot.replace(/\.png$/, '-refused.png') })
  })
  await step('fixed: saved', async () => {
    await tid('settings-brave-key').fill(BRAVE_KEY)
    await tid('settings-allow-hosts').fill('nas.local, wiki.lan')
    await tid('settings-save').click()
    await dialog().waitFor({ state: 'hidden' })
  })
  await step('reopened: the keys masked, never in full', async () => {
    await tid('settings-open').click()
    await dialog().waitFor({ state: 'visible' })
    await tid('settings-tools').scrollIntoViewIfNeeded()
    const images = await tid('settings-images-key-status').innerText()
    const brave = await tid('settings-brave-key-status').innerText()
    check(images.includes('sk-…6789') && brave.includes('BSA…4242'), `key status: ${images} / ${brave}`)
    await checkValue(tid('settings-images-url'), imagesURL, 'the images URL was not kept')
    await checkValue(tid('settings-allow-hosts'), 'nas.local, wiki.lan', 'the hosts were not kept')
    const html = await page.content()
    check(!html.includes(IMAGES_KEY) && !html.includes(BRAVE_KEY), 'a key is on the page in full')
    if (shot) await tid('settings-tools').screenshot({ path: shot })
    // Test connection again: with the stored key.
    await tid('settings-images-test').click()
    await page.locator('[data-testid="settings-images-result"]', { hasText: 'Connected' }).waitFor()
  })
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`)
} catch (err) {
  console.error('FAIL', err.message)
  if (shot) await page.screenshot({ path: shot })
  code = 1
} finally {
  await browser.close()
}
process.exit(code)
