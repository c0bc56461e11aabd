// End-to-end check of the composer's toolbar against `tofu serve` (TestToolbarEndToEnd): web
// access on and an MCP server in the settings, a model scripted to call tool_search("echo")
// once per turn. The browser sets a workspace, sends a first message with every family on,
// turns Coding and the MCP server off in the Tools menu with the keyboard and the browser's
// tools to be offered at once, turns Search off, and sends a second; the Go side checks the
// model's requests.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_WORKSPACE=/tmp/ws \
//   [TOFU_E2E_SHOT=shot.png] [TOFU_E2E_TIMEOUT_MS=30000] node e2e/toolbar.e2e.mjs
import { check, step, openPage, runScript, requireEnv, setWorkspace } from './lib.mjs'

const url = process.env.TOFU_URL
const workspace = process.env.TOFU_E2E_WORKSPACE
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)
requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout })
// The model ends each turn with "Finished <first word of the message>".
const turnDone = async (word) => {
  await page.locator('[data-testid="message-assistant"]', { hasText: `Finished ${word}` }).waitFor()
  await tid('stop').waitFor({ state: 'detached' })
}


await runScript('toolbar e2e', { browser, page, pageErrors }, async () => {
  await step('open the app, a conversation with a workspace', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app could not reach the backend')
    await tid('new-conversation').click()
    check((await tid('tools-open').innerText()).includes('No tools'), 'a plain conversation shows tools')
    await setWorkspace(page, workspace)
  })

  await step('the toolbar shows every family on but Desktop (off in Settings), and Search on', async () => {
    // Desktop control is off in Settings: counted, and named (regression, issue 36: the chip
    // said "Tools 6/6 — Every tool family is on" with desktop off).
    await page.locator('[data-testid="tools-open"]', { hasText: 'Tools 6/7' }).waitFor()
    // The title moves to data-tip while the pointer is on the chip (lib/tooltip.ts).
    const title = await tid('tools-open').evaluate((b) => b.getAttribute('title') ?? b.getAttribute('data-tip'))
    check(title === 'Off in Settings: Desktop', `the Tools chip's title: ${title}`)
    await page.locator('[data-testid="search-toggle"][aria-pressed="true"]').waitFor()
  })

  await step('a first message with every family on', async () => {
    await tid('composer').fill('first: find an echo tool')
    await tid('composer').press('Enter')
    await turnDone('first')
  })

  await step('Tools menu by keyboard: Coding and the MCP server off', async () => {
    await tid('tools-open').focus()
    await page.keyboard.press('Enter')
    await tid('tools-menu').waitFor()
    // Focus is on the first item (Coding): Space toggles it.
    check(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')) === 'tools-family-coding', 'focus is not on the first family')
    await page.keyboard.press(' ')
    await page.locator('[data-testid="tools-family-coding"][aria-checked="false"]').waitFor()
    // Browser: offered from the next request, by its "when needed" switch.
    await page.keyboard.press('ArrowDown') // Web search
    await page.keyboard.press('ArrowDown') // its "when needed" switch
    await page.keyboard.press('ArrowDown') // Browser
    await page.keyboard.press('ArrowDown') // its switch
    check(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')) === 'tools-offer-browser', 'arrows do not reach the browser\'s switch')
    check((await tid('tools-offer-browser').innerText()) === 'when needed', 'the browser is not "when needed" by default')
    await page.keyboard.press('Enter')
    await page.locator('[data-testid="tools-offer-browser"][aria-checked="true"]', { hasText: 'offered' }).waitFor()
    await page.keyboard.press('End') // the last item: the MCP server's switch, then its row
    check(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')) === 'tools-offer-mcp:everything', 'End does not reach the MCP server\'s switch')
    await page.keyboard.press('ArrowUp')
    check(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')) === 'tools-family-mcp:everything', 'ArrowUp does not reach the MCP server')
    await page.keyboard.press('Enter')
    await page.locator('[data-testid="tools-family-mcp:everything"][aria-checked="false"]').waitFor()
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-tools.png') })
    await page.keyboard.press('Escape')
    await tid('tools-menu').waitFor({ state: 'detached' })
    check(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')) === 'tools-open', 'Escape does not give focus back to the chip')
    await page.locator('[data-testid="tools-open"]', { hasText: 'Tools 4/7' }).waitFor()
  })

  await step('Search off: the chip and the menu agree', async () => {
    await tid('search-toggle').click()
    await page.locator('[data-testid="search-toggle"][aria-pressed="false"]').waitFor()
    await page.locator('[data-testid="tools-open"]', { hasText: 'Tools 3/7' }).waitFor()
  })

  await step('the Enhance menu opens upward and closes on a click outside', async () => {
    await tid('enhance-open').click()
    await tid('enhance-translate').waitFor()
    await tid('enhance-thinking').waitFor()
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-enhance.png') })
    await page.mouse.click(640, 120)
    await tid('enhance-translate').waitFor({ state: 'detached' })
  })

  await step('a second message with those families off', async () => {
    await tid('composer').fill('second: find an echo tool')
    await tid('composer').press('Enter')
    await turnDone('second')
  })

  await step('messages typed while a reply streams are queued, editable, sent in order', async () => {
    await tid('composer').fill('slow please')
    await tid('composer').press('Enter')
    await tid('stop').waitFor()
    for (const text of ['queued one', 'queued two', 'queued three']) {
      await tid('composer').fill(text)
      await tid('composer').press('Enter')
    }
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="queued-message"]').length === 3)
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-queue.png') })
    // Remove the third, edit the second.
    await tid('queued-remove').nth(2).click()
    await tid('queued-text').nth(1).click()
    await tid('queued-edit').fill('queued 2 (edited)')
    await tid('queued-edit').press('Enter')
    check((await tid('queued-text').allInnerTexts()).join('|') === 'queued one|queued 2 (edited)', 'the queue does not show the edit')
    // The reply streams until stopped; then the queue goes, in order.
    await tid('stop').click()
    await page.locator('[data-testid="message-assistant"]', { hasText: 'Finished queued 2 (edited)' }).waitFor()
    await tid('stop').waitFor({ state: 'detached' })
    await tid('queue').waitFor({ state: 'detached' })
  })

  await step('after a reload the conversation keeps its switches', async () => {
    await page.reload()
    await page.locator('[data-testid="tools-open"]', { hasText: 'Tools 3/7' }).waitFor()
    await page.locator('[data-testid="search-toggle"][aria-pressed="false"]').waitFor()
  })

}, { shot })
