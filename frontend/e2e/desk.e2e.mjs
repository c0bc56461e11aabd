// End-to-end check of My Day and the Schedule panel against `tofu serve` (TestDeskEndToEnd):
// a day with two conversations seeded in the log and a job whose runs were missed while Tofu
// was closed. The browser writes today's report and checks its figures, then opens the
// schedule, sees the missed runs reported, and adds a job.
//
//   TOFU_URL=http://127.0.0.1:PORT/?token=T  TOFU_E2E_SHOT=myday.png TOFU_E2E_SHOT2=schedule.png node e2e/desk.e2e.mjs
import { check, step, openPage } from './lib.mjs'

const url = process.env.TOFU_URL
const shot = process.env.TOFU_E2E_SHOT
const shot2 = process.env.TOFU_E2E_SHOT2
if (!url) {
  console.error('e2e: set TOFU_URL')
  process.exit(2)
}
const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900 })
let code = 0
try {
  await step('open the app', async () => {
    await page.goto(url)
    await tid('myday-open').waitFor()
  })
  await step('My Day: write today\'s report', async () => {
    await tid('myday-open').click()
    await tid('myday-panel').waitFor()
    await tid('myday-generate').click()
    await tid('myday-summary').waitFor()
    const summary = await tid('myday-summary').innerText()
    check(summary.includes('2 conversation(s)'), `summary: ${summary}`)
    check((await tid('myday-todos').innerText()).includes('add a test for quoted commas'), 'the TODO line is missing')
    const usage = await tid('myday-usage').innerText()
    check(usage.includes('qwen3:8b') && usage.includes('$0.01'), `usage: ${usage}`)
    if (shot) await page.screenshot({ path: shot })
    await page.keyboard.press('Escape')
  })
  await step('Schedule: missed runs reported, a job added', async () => {
    await tid('schedule-open').click()
    await tid('schedule-panel').waitFor()
    const missed = await tid('schedule-missed').innerText({ timeout: 5000 })
    check(missed.includes('3 runs were missed'), `missed: ${missed}`)
    await tid('schedule-prompt').fill('Summarize the new papers on retrieval')
    await tid('schedule-cron').fill('30 9 * * 1-5')
    await tid('schedule-submit').click()
    await page.locator('[data-testid="schedule-job"]', { hasText: 'Summarize the new papers' }).waitFor({ timeout: 5000 })
    if (shot2) await page.screenshot({ path: shot2 })
  })
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`)
} catch (err) {
  console.error('FAIL', err.message)
  if (shot2) await page.screenshot({ path: shot2 })
  code = 1
} finally {
  await browser.close()
}
process.exit(code)
