// End-to-end check of history search: Ctrl+K focuses the sidebar's search box, a Chinese query
// and an identifier find their messages with snippets, and a result opens its conversation
// scrolled to the message, marked.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  node e2e/history.e2e.mjs
//
// The Go side (TestHistorySearchEndToEnd) records the conversations first.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
requireEnv('TOFU_URL')
const { browser, page, pageErrors, tid } = await openPage({ timeout: 30000 })
const hits = () => page.$$eval('[data-testid="history-hit"]', (els) => els.map((e) => e.textContent ?? ''))

await runScript('history e2e', { browser, page, pageErrors }, async () => {
  await step('open the app', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="session-item"]')
  })
  await step('Ctrl+K focuses the search box', async () => {
    await page.keyboard.press('Control+k')
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))
    check(focused === 'history-search', `focus is on ${focused}`)
  })
  await step('a Chinese query finds the Chinese message', async () => {
    await page.keyboard.type('数据库压缩')
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="history-hit"]')].some((e) => e.textContent?.includes('数据库压缩的原理')))
    check((await tid('session-item').count()) === 0, 'the conversation list shows under the results')
  })
  await step('an identifier finds the assistant message that names it', async () => {
    await tid('history-search').fill('RunValueLogGC')
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="history-hit"]')].some((e) => e.textContent?.includes('periodically')))
    const first = (await hits())[0]
    check(first.includes('Badger value log growing') && first.includes('RunValueLogGC'), `first hit: ${first}`)
    if (process.env.TOFU_E2E_SHOT_HITS) await page.screenshot({ path: process.env.TOFU_E2E_SHOT_HITS })
  })
  await step('a result opens the conversation at the message', async () => {
    await tid('history-hit').first().click()
    // The mark goes after 1.6 s: its message is read in the same look that finds it.
    const seq = await (await page.waitForFunction(() => document.querySelector('.found')?.getAttribute('data-seq'))).jsonValue()
    check(seq === '2', `marked message seq ${seq}`)
    if (process.env.TOFU_E2E_SHOT) await page.screenshot({ path: process.env.TOFU_E2E_SHOT })
  })
  await step('Escape clears the search and the list returns', async () => {
    await tid('history-search').focus()
    await page.keyboard.press('Escape')
    await page.waitForSelector('[data-testid="session-item"]')
  })
})
