// Translate-then-reason in the window, against `tofu serve` (TestTranslateEndToEnd): the
// Enhance menu turns it on, a French message is sent, the reply shows in French with a toggle
// to the model's English original, and the user's message toggles to the English sent.
//   TOFU_URL=… TOFU_E2E_SHOT=out/x.png node e2e/translate-shot.mjs
import { dirname } from 'node:path'
import { check, openPage, step } from './lib.mjs'

const url = process.env.TOFU_URL
const out = dirname(process.env.TOFU_E2E_SHOT ?? './x')
const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 800 })
try {
  await page.goto(url)
  await step('a new conversation with translation on', async () => {
    const before = await tid('session-item').count()
    await tid('new-conversation').click()
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="session-item"]').length > n, before)
    await tid('enhance-open').click()
    await tid('enhance-translate').check()
    await page.locator('[data-testid="enhance-open"]', { hasText: 'Translate' }).waitFor()
    // Memory recall is on by default; off for this conversation, the trigger says so.
    check(await tid('enhance-recall').isChecked(), 'memory recall starts on')
    await tid('enhance-recall').uncheck()
    await page.locator('[data-testid="enhance-open"]', { hasText: 'No recall' }).waitFor()
    await page.screenshot({ path: `${out}/enhance-menu.png` })
    await tid('enhance-recall').check()
    await page.locator('[data-testid="enhance-open"]', { hasText: 'No recall' }).waitFor({ state: 'detached' })
    // The demo model thinks: the conversation's thinking level is offered, and the trigger
    // says when it differs from the settings'.
    await tid('enhance-thinking-level').selectOption('high')
    await page.locator('[data-testid="enhance-open"]', { hasText: 'Thinking high' }).waitFor()
    await page.screenshot({ path: `${out}/enhance-thinking.png` })
    await tid('enhance-thinking-level').selectOption('')
    await page.locator('[data-testid="enhance-open"]', { hasText: 'Thinking' }).waitFor({ state: 'detached' })
    await tid('enhance-open').click()
  })
  await step('Ctrl+Shift+X keeps the selection untranslated', async () => {
    await tid('composer').fill('Le projet Tofu Desk avance')
    await tid('composer').evaluate((el) => el.setSelectionRange(10, 19))
    await tid('composer').press('Control+Shift+X')
    const v = await tid('composer').inputValue()
    check(v === 'Le projet <nt>Tofu Desk</nt> avance', `composer: ${v}`)
    await tid('composer').fill('')
  })
  await step('the French question is answered in French', async () => {
    await tid('composer').fill('Pourquoi `go vet` échoue-t-il dans /work/main sur ma machine ?')
    await tid('composer').press('Enter')
    const reply = page.locator('[data-testid="message-assistant"][data-streaming="false"]', { hasText: 'Parce que' })
    await reply.waitFor()
    const text = await reply.innerText()
    check(text.includes('go vet') && text.includes('fmt.Printf') && text.includes('Translated into French'), `reply: ${text}`)
    const user = await tid('message-user').innerText()
    check(user.includes('Pourquoi') && user.includes('Translated from French'), `user: ${user}`)
  })
  await page.screenshot({ path: `${out}/translate-reply.png` })
  await step('the toggles show the English texts', async () => {
    await tid('message-assistant').getByTestId('translation-toggle').click()
    const reply = page.locator('[data-testid="message-assistant"]', { hasText: 'Because' })
    await reply.waitFor()
    check((await reply.innerText()).includes('Show translation'), 'no way back to the translation')
    await tid('message-user').getByTestId('translation-toggle').click()
    await page.locator('[data-testid="message-user"]', { hasText: 'Why does go vet fail' }).or(page.locator('[data-testid="message-user"]', { hasText: 'Why does `go vet` fail' })).waitFor()
  })
  await page.screenshot({ path: `${out}/translate-original.png` })
  if (pageErrors.length) throw new Error(pageErrors.join('\n'))
  console.log('ok')
} catch (e) {
  await page.screenshot({ path: `${out}/translate-failed.png` })
  console.error(e.message)
  process.exitCode = 1
} finally {
  await browser.close()
}
