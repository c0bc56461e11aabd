// End-to-end check of My Day and the Schedule panel against `tofu serve` (TestDeskEndToEnd):
// a day with two conversations seeded in the log, a job whose runs were missed while Tofu
// was closed, and My Day's daily time missed too (written at start). The browser sees the
// catch-up said in My Day, writes today's report and checks its figures, sets a new daily
// time (seen in Settings), then opens the schedule, sees the missed runs reported, and adds a
// job.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_SHOT=myday.png TOFU_E2E_SHOT2=schedule.png node e2e/desk.e2e.mjs
import { check, checkValue, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const shot = process.env.TOFU_E2E_SHOT
const shot2 = process.env.TOFU_E2E_SHOT2
const shot3 = process.env.TOFU_E2E_SHOT3
const missedAt = process.env.TOFU_E2E_MYDAY_AT
requireEnv('TOFU_URL')
const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900 })

await runScript('desk e2e', { browser, page, pageErrors }, async () => {
  await step('open the app', async () => {
    await page.goto(url)
    await tid('myday-open').waitFor()
  })
  await step('My Day: the time missed while closed was written at start', async () => {
    await tid('myday-open').click()
    await tid('myday-panel').waitFor()
    await checkValue(tid('myday-at'), missedAt, 'time shown')
    await page.locator('[data-testid="myday-at-status"]', { hasText: 'written at the next start' }).waitFor({ timeout: 10000 })
    const line = await tid('myday-at-status').innerText()
    check(line.includes(`Written every day at ${missedAt}`) && line.includes(`${missedAt} was missed (Tofu was closed)`), `status: ${line}`)
  })
  await step('My Day: a new daily time, refused then set, and seen in Settings', async () => {
    await tid('myday-at').fill('07:30')
    await tid('myday-at-save').click()
    await page.locator('[data-testid="myday-at-status"]', { hasText: 'Written every day at 07:30' }).waitFor({ timeout: 5000 })
    if (shot3) await page.screenshot({ path: shot3 })
  })
  await step('My Day: write today\'s report', async () => {
    await tid('myday-generate').click()
    // The report written at start may be shown already: read the panel once this one is back
    // (the button says "Writing…" until then).
    await page.locator('[data-testid="myday-generate"]:not([disabled])', { hasText: 'Write again' }).waitFor()
    await tid('myday-summary').waitFor()
    const summary = await tid('myday-summary').innerText()
    check(summary.includes('2 conversations'), `summary: ${summary}`)
    // Regression (issue 36): raw "- " lines and "title: title".
    check(!/^- /m.test(summary), `the summary shows raw "- " lines: ${summary}`)
    check(!summary.split('\n').some((l) => { const [a, b] = l.split(': '); return b !== undefined && a.trim() === b.trim() }), `the summary repeats a title: ${summary}`)
    check((await tid('myday-todos').innerText()).includes('add a test for quoted commas'), 'the TODO line is missing')
    const usage = await tid('myday-usage').innerText()
    check(usage.includes('qwen3:8b') && usage.includes('$0.01'), `usage: ${usage}`)
    if (shot) await page.screenshot({ path: shot })
    await page.keyboard.press('Escape')
  })
  await step('Settings: My Day\'s time as set in the panel', async () => {
    await tid('settings-open').click()
    await tid('settings-dialog').waitFor()
    await checkValue(tid('settings-myday-at'), '07:30', 'settings time')
    if (shot3) {
      await tid('settings-myday-at').scrollIntoViewIfNeeded()
      await page.screenshot({ path: shot3.replace(/\.png$/, '-settings.png') })
    }
    await page.keyboard.press('Escape')
    await tid('settings-dialog').waitFor({ state: 'hidden' })
  })
  await step('Schedule: missed runs reported, a job added', async () => {
    await tid('schedule-open').click()
    await tid('schedule-panel').waitFor()
    const missed = await tid('schedule-missed').innerText({ timeout: 5000 })
    check(missed.includes('4 runs were missed'), `missed: ${missed}`)
    const mine = page.locator('[data-testid="schedule-job"]', { hasText: 'My Day' })
    const text = await mine.innerText()
    check(text.includes('cron 30 7 * * *') && text.includes('ran late') && !(await mine.getByRole('button', { name: /Remove/ }).count()), `My Day job: ${text}`)
    await tid('schedule-prompt').fill('Summarize the new papers on retrieval')
    await tid('schedule-cron').fill('30 9 * * 1-5')
    // The cron in words as it is typed, and a conversation picked by name, not typed as an id.
    await page.locator('[data-testid="schedule-cron-words"]', { hasText: 'On weekdays at 09:30' }).waitFor()
    check((await tid('schedule-session').evaluate((e) => e.tagName)) === 'SELECT', 'the conversation is a free-text id')
    check((await tid('schedule-session').locator('option').count()) > 1, 'no conversation to choose from')
    await tid('schedule-submit').click()
    const added = page.locator('[data-testid="schedule-job"]', { hasText: 'Summarize the new papers' })
    await added.waitFor({ timeout: 5000 })
    check((await added.innerText()).includes('On weekdays at 09:30'), `the job's time: ${await added.innerText()}`)
    if (shot2) await page.screenshot({ path: shot2 })
  })
}, { failShot: shot2 })
