// End-to-end check of the chat window against a running `tofu serve` (or any server speaking
// docs/API.md), driven in headless Chromium through playwright-core.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_EXPECT='text the model answers to hello' \
//   [TOFU_E2E_SHOT=shot.png] [TOFU_E2E_TIMEOUT_MS=30000] [CHROMIUM=/usr/bin/chromium] node e2e/chat.e2e.mjs
//
// Steps: new conversation → "hello" + Enter → a streamed reply containing TOFU_E2E_EXPECT →
// the context meter shows, its token panel has a bar per model call ([TOFU_E2E_TOKENS_SHOT=png]) →
// "long" → Stop while streaming → the reply stops and is marked interrupted → reload → both user
// messages and both replies are still there. Exit 0 on success, 1 with a message on failure.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const expectText = process.env.TOFU_E2E_EXPECT ?? ''
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)

requireEnv('TOFU_URL')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 860, timeout })


await runScript('chat e2e', { browser, page, pageErrors }, async () => {
  let sessionId = ''

  await step('open the app', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    const down = await tid('backend-down').count()
    check(down === 0, `the app could not reach the backend: ${down ? await tid('backend-down').innerText() : ''}`)
    check(!new URL(page.url()).searchParams.has('token'), 'the token is still in the address bar')
  })

  await step('create a conversation', async () => {
    const before = await tid('session-item').count()
    await tid('new-conversation').click()
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="session-item"]').length > n, before)
    sessionId = (await page.locator('[data-testid="session-item"].active').getAttribute('data-session-id')) ?? ''
    check(sessionId !== '', 'the new conversation is not selected')
  })

  await step('send "hello" with Enter and get a streamed reply', async () => {
    // Watch for the streaming state: it can be short with a fast scripted model.
    await page.evaluate(() => {
      window.__sawStreaming = false
      new MutationObserver(() => {
        if (document.querySelector('[data-testid="message-assistant"][data-streaming="true"]')) window.__sawStreaming = true
      }).observe(document.body, { subtree: true, childList: true, attributes: true })
    })
    await tid('composer').fill('hello')
    await tid('composer').press('Enter')
    await page.locator('[data-testid="message-user"]', { hasText: 'hello' }).waitFor()
    const reply = page.locator('[data-testid="message-assistant"][data-streaming="false"]').first()
    await reply.waitFor()
    if (expectText) await page.locator('[data-testid="message-assistant"][data-streaming="false"]', { hasText: expectText }).first().waitFor()
    const text = await reply.innerText()
    check(!expectText || text.includes(expectText), `the reply does not contain ${JSON.stringify(expectText)}: ${JSON.stringify(text.slice(0, 300))}`)
    const errors = await tid('message-error').count()
    check(errors === 0, `the turn failed: ${errors ? await tid('message-error').first().innerText() : ''}`)
    console.log(`     streaming state seen: ${await page.evaluate(() => window.__sawStreaming)}`)
  })

  await step('the context meter shows the tokens; its panel has a bar per call', async () => {
    const meter = tid('context-meter')
    await meter.waitFor({ state: 'visible' })
    const label = (await meter.getAttribute('aria-label')) ?? ''
    check(/\d/.test(label), `the context meter has no figures: ${JSON.stringify(label)}`)
    await meter.click()
    const panel = tid('token-panel')
    await panel.waitFor({ state: 'visible' })
    const bars = await panel.getByTestId('token-bar').count()
    check(bars >= 1, `the token panel shows ${bars} bars`)
    const rows = await panel.getByTestId('token-row').count()
    check(rows === bars, `the token table has ${rows} rows for ${bars} bars`)
    if (process.env.TOFU_E2E_TOKENS_SHOT) await page.screenshot({ path: process.env.TOFU_E2E_TOKENS_SHOT })
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'detached' })
  })

  await step('send "long" and stop it while it streams', async () => {
    await tid('composer').fill('long')
    await tid('composer').press('Enter')
    await page.locator('[data-testid="message-user"]', { hasText: 'long' }).waitFor()
    await tid('stop').waitFor({ state: 'visible' })
    await page.locator('[data-testid="message-assistant"][data-streaming="true"]').waitFor()
    await tid('stop').click()
    await tid('stop').waitFor({ state: 'detached' })
    await page.waitForFunction(() => !document.querySelector('[data-testid="message-assistant"][data-streaming="true"]'))
    await tid('message-interrupted').last().waitFor()
    // Nothing keeps streaming afterwards.
    const lenBefore = (await page.locator('[data-testid="message-assistant"]').last().innerText()).length
    await page.waitForTimeout(500)
    const lenAfter = (await page.locator('[data-testid="message-assistant"]').last().innerText()).length
    check(lenBefore === lenAfter, `the reply kept growing after Stop (${lenBefore} → ${lenAfter} chars)`)
  })

  await step('reload: the conversation is still there', async () => {
    await page.reload()
    await page.waitForSelector('[data-testid="session-item"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'after reload the app cannot reach the backend (token lost?)')
    await page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"] button`).first().click()
    await page.locator('[data-testid="message-user"]', { hasText: 'hello' }).waitFor()
    await page.locator('[data-testid="message-user"]', { hasText: 'long' }).waitFor()
    await tid('message-interrupted').first().waitFor()
    const users = await tid('message-user').allInnerTexts()
    const replies = await tid('message-assistant').allInnerTexts()
    check(users.length === 2, `expected 2 user messages after reload, found ${users.length}: ${JSON.stringify(users)}`)
    check(replies.length >= 2, `expected 2 replies after reload, found ${replies.length}`)
    check(!expectText || replies[0].includes(expectText), `the first reply lost ${JSON.stringify(expectText)} after reload`)
    check((await page.locator('[data-testid="message-assistant"][data-interrupted="true"]').count()) >= 1, 'the stopped reply is not marked interrupted after reload')
  })

}, { shot })
