// End-to-end check of the memory panel: records of both scopes listed, search, edit and switch
// one off, see the turn that used it, create one, delete one. TestMemoryPanelEndToEnd records
// the session and the files first and checks the files afterwards.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  node e2e/memory.e2e.mjs
import { check, checkValue, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
requireEnv('TOFU_URL')
const { browser, page, pageErrors, tid } = await openPage({ timeout: 30000 })
const names = () => page.$$eval('[data-testid="memory-item"] .name', (els) => els.map((e) => e.textContent ?? ''))

await runScript('memory e2e', { browser, page, pageErrors }, async () => {
  await step('open the panel from the sidebar', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="session-item"]')
    await tid('memory-open').click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="memory-item"]').length === 2)
    const n = await names()
    check(n.some((x) => x.startsWith('Deploy steps') && x.includes('project')) && n.some((x) => x.startsWith('Commit style') && x.includes('global')), `records: ${n}`)
  })
  await step('search narrows the list', async () => {
    await tid('memory-search').fill('kubectl rollout')
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="memory-item"]').length === 1)
    check((await names())[0].startsWith('Deploy steps'), `found ${await names()}`)
  })
  await step('a record opens with the turn that used it', async () => {
    await tid('memory-item').first().click()
    await checkValue(tid('memory-body'), /kubectl rollout/, 'body not shown')
    await tid('memory-use').first().waitFor()
  })
  await step('switch it off and save', async () => {
    await tid('memory-enabled').uncheck()
    await tid('memory-body').fill('Deploy with kubectl rollout restart.')
    await tid('memory-save').click()
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="memory-item"]')].some((e) => e.classList.contains('off')))
    if (process.env.TOFU_E2E_SHOT) await page.screenshot({ path: process.env.TOFU_E2E_SHOT })
  })
  await step('create a record', async () => {
    await tid('memory-search').fill('')
    await tid('memory-new').click()
    await tid('memory-name').fill('Test runner')
    await tid('memory-body').fill('Run tests through build/offline.sh.')
    await tid('memory-save').click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="memory-item"]').length === 3)
  })
  await step('delete one after confirming', async () => {
    const items = page.locator('[data-testid="memory-item"]', { hasText: 'Commit style' })
    await items.click()
    await tid('memory-delete').click()
    await tid('memory-delete-confirm').click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="memory-item"]').length === 2)
  })
  await step('a use opens its conversation', async () => {
    await page.locator('[data-testid="memory-item"]', { hasText: 'Deploy steps' }).click()
    await tid('memory-use').first().click()
    await page.waitForSelector('.found')
  })
})
