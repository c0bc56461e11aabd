// The model gateway's notices in the window, against `tofu serve` (TestGatewayNoticesEndToEnd):
// the banner says the main model was replaced at startup (both models and why), and the agent
// session recorded by `tofu run` shows its reply's fallback (both models and the reason) and
// the correction of a tool call printed as text.
//   TOFU_URL=… TOFU_E2E_SHOT=out/x.png node e2e/gateway-shot.mjs
import { dirname } from 'node:path'
import { check, openPage, step } from './lib.mjs'

const url = process.env.TOFU_URL
const out = dirname(process.env.TOFU_E2E_SHOT ?? './x')
const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900 })
try {
  await page.goto(url)
  await step('the banner names both models at startup', async () => {
    await tid('session-item').first().click()
    await tid('banner').waitFor()
    const text = await tid('banner').innerText()
    check(/Using backup\/tofu-test:latest instead of tofu-test:latest/.test(text), `banner: ${text}`)
    check((await tid('banner').getAttribute('data-kind')) === 'fallback', 'banner kind')
  })
  await step('the agent session shows the fallback and the correction', async () => {
    await tid('message-fallback').first().waitFor()
    const fb = await tid('message-fallback').first().innerText()
    check(fb.includes('Answered by backup/tofu-test:latest — tofu-test:latest was not available at startup'), `fallback note: ${fb}`)
    const notes = await tid('message-notice').allInnerTexts()
    check(notes.some((n) => n.includes('printed a tool call as text')), `notices: ${notes.join(' | ')}`)
  })
  await page.screenshot({ path: `${out}/gateway-notices.png`, fullPage: true })
  if (pageErrors.length) throw new Error(pageErrors.join('\n'))
  console.log('ok')
} catch (e) {
  await page.screenshot({ path: `${out}/gateway-failed.png` })
  console.error(e.message)
  process.exitCode = 1
} finally {
  await browser.close()
}
