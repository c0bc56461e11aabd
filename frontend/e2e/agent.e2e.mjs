// End-to-end check of the coding agent in the chat window against a running `tofu serve` whose
// model is scripted to read notes.txt, then edit it, then finish (TestAgentEndToEnd).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_WORKSPACE=/tmp/ws (holds notes.txt) \
//   [TOFU_E2E_SHOT=shot.png] [TOFU_E2E_TIMEOUT_MS=30000] [CHROMIUM=/usr/bin/chromium] node e2e/agent.e2e.mjs
//
// Steps: new conversation → set the workspace (the chip's path input) → ask → the read_files
// card turns ok → the approval card for edit_files shows the file → Allow once → the edit card
// shows its diff → the turn ends with a token line → reload → cards, diff and workspace are all
// still there, and no approval is left pending → "again": a second edit asks, Stop while it waits
// (the card expires, Continue shows) → Continue asks again → Deny → the card says denied →
// autonomous mode: the planner, worker and critic markers show and the critic's STOP ends it.
// Exit 0 on success, 1 with a message on failure.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const workspace = process.env.TOFU_E2E_WORKSPACE
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)

requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout })
const card = (tool, status) => page.locator(`[data-testid="tool-card"][data-tool="${tool}"]${status ? `[data-status="${status}"]` : ''}`)


await runScript('agent e2e', { browser, page, pageErrors }, async () => {
  let sessionId = ''

  await step('open the app and create a conversation', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app could not reach the backend')
    const before = await tid('session-item').count()
    await tid('new-conversation').click()
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="session-item"]').length > n, before)
    sessionId = (await page.locator('[data-testid="session-item"].active').getAttribute('data-session-id')) ?? ''
    check(sessionId !== '', 'the new conversation is not selected')
  })

  await step('a bad path is refused inline', async () => {
    await tid('workspace-chip').click()
    await tid('workspace-input').fill(`${workspace}/does-not-exist`)
    await tid('workspace-input').press('Enter')
    await tid('workspace-error').waitFor()
    check((await tid('workspace-error').innerText()).includes('does not exist'), 'the error does not say the folder does not exist')
  })

  await step('set the workspace', async () => {
    await tid('workspace-input').fill(workspace)
    await tid('workspace-input').press('Enter')
    await page.locator(`[data-testid="workspace-chip"][data-workspace="${workspace}"]`).waitFor()
    await tid('workspace-input').waitFor({ state: 'detached' })
  })

  await step('ask: the read runs without asking and its card is ok', async () => {
    await tid('composer').fill('Fix the spelling in notes.txt')
    await tid('composer').press('Enter')
    await card('read_files', 'ok').waitFor()
    const text = await card('read_files').innerText()
    check(text.includes('notes.txt'), `the read card does not name the file: ${JSON.stringify(text)}`)
  })

  await step('the edit asks: approval card with the exact path', async () => {
    await tid('approval-card').waitFor()
    const subject = await tid('approval-subject').innerText()
    check(subject.includes(`${workspace}/notes.txt`), `the approval does not name the file: ${JSON.stringify(subject)}`)
    check((await card('edit_files', 'waiting').count()) === 1, 'the edit card is not waiting for approval')
    check((await tid('stop').count()) === 1, 'no Stop button while the turn waits')
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-approval.png') })
  })

  await step('Allow once: the edit runs and shows its diff', async () => {
    await tid('approve-once').click()
    await tid('approval-card').waitFor({ state: 'detached' })
    await card('edit_files', 'ok').waitFor()
    const diff = card('edit_files').getByTestId('tool-diff')
    await diff.waitFor()
    const text = await diff.innerText()
    check(text.includes('+tofu is made of soybeans') && text.includes('-tofu is made of soy'), `the diff is not shown: ${JSON.stringify(text)}`)
    check(await diff.locator('.ln.add').count() >= 1, 'added lines are not coloured')
  })

  await step('the turn ends with a reply and a token line', async () => {
    await page.locator('[data-testid="message-assistant"][data-streaming="false"]', { hasText: 'soybeans' }).last().waitFor()
    await tid('turn-usage').waitFor()
    await tid('stop').waitFor({ state: 'detached' })
    const line = await tid('turn-usage').innerText()
    check(/3 steps · [\d,]+ in · [\d,]+ out/.test(line), `turn line: ${JSON.stringify(line)}`)
    check((await tid('message-error').count()) === 0, 'the turn failed')
  })

  await step('reload: tool cards, diff, workspace are still there', async () => {
    await page.reload()
    await page.waitForSelector('[data-testid="session-item"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'after reload the app cannot reach the backend')
    await page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"] button`).first().click()
    await card('read_files', 'ok').waitFor()
    await card('edit_files', 'ok').getByTestId('tool-diff').waitFor()
    await tid('turn-usage').waitFor()
    await page.locator(`[data-testid="workspace-chip"][data-workspace="${workspace}"]`).waitFor()
    check((await tid('approval-card').count()) === 0, 'an answered approval shows as pending after reload')
    check((await tid('approval-expired').count()) === 0, 'an answered approval shows as expired after reload')
    check((await tid('continue').count()) === 0, 'a finished turn offers Continue')
    // The read's result opens on click.
    await card('read_files').getByTestId('tool-toggle').click()
    const out = await card('read_files').getByTestId('tool-result').innerText()
    check(out.includes('tofu is made of soy'), `the read result is not shown: ${JSON.stringify(out)}`)
  })

  await step('again: Stop while the approval waits → expired, Continue offered', async () => {
    await tid('composer').fill('Try again with two words')
    await tid('composer').press('Enter')
    await tid('approval-card').waitFor()
    await tid('stop').click()
    await tid('approval-expired').waitFor()
    await tid('approval-card').waitFor({ state: 'detached' })
    await tid('continue').waitFor()
    await page.locator('[data-testid="tool-card"][data-call-id="call_again"][data-status="not_run"]').waitFor()
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-stopped.png') })
  })

  await step('Continue asks again; Deny: the card says denied and the model goes on', async () => {
    await tid('continue').click()
    await tid('approval-card').waitFor()
    await tid('approve-deny').click()
    await page.locator('[data-testid="tool-card"][data-call-id="call_again"][data-status="denied"]').waitFor()
    // Who denied it, in words (issue 36: a policy block read like the user's Deny).
    const who = await page.locator('[data-testid="tool-card"][data-call-id="call_again"] [data-testid="tool-decided"]').innerText()
    check(who === 'denied by you', `the denied card says: ${who}`)
    await page.locator('[data-testid="message-assistant"][data-streaming="false"]', { hasText: 'left' }).last().waitFor()
    await tid('stop').waitFor({ state: 'detached' })
    check((await tid('approval-expired').count()) === 0, 'the answered approval still shows as expired')
    check((await tid('continue').count()) === 0, 'Continue is still offered after the turn finished')
  })

  await step('autonomous mode: planner, worker and critic markers, the STOP ends the run', async () => {
    await tid('mode-autonomous').click()
    await page.locator('[data-testid="mode-switch"][data-mode="autonomous"]').waitFor()
    await tid('composer').fill('Check the notes autonomously')
    await tid('composer').press('Enter')
    await page.locator('[data-testid="phase-marker"][data-role="planner"]', { hasText: 'Planner' }).waitFor()
    await page.locator('[data-testid="phase-marker"][data-role="worker"]', { hasText: 'Worker: round 1' }).waitFor()
    await page.locator('[data-testid="phase-marker"][data-verdict="STOP"]', { hasText: 'Critic’s verdict: done, the work holds — Checked notes.txt' }).waitFor()
    // Phases and verdicts in words: no raw verdict names (regression, issue 36).
    const markers = await tid('phase-marker').allInnerTexts()
    check(!markers.some((t) => /STOP|CONTINUE_/.test(t)), `a phase marker shows a raw verdict: ${markers.join(' | ')}`)
    const replies = await tid('message-assistant').allInnerTexts()
    check(!replies.some((t) => /VERDICT:/.test(t)), 'the critic\'s reply shows its VERDICT line')
    await tid('stop').waitFor({ state: 'detached' })
    check((await tid('continue').count()) === 0, 'a finished autonomous run offers Continue')
    // The mode is the session's: it survives a reload.
    await page.reload()
    await page.waitForSelector('[data-testid="session-item"]')
    await page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"] button`).first().click()
    await page.locator('[data-testid="mode-switch"][data-mode="autonomous"]').waitFor()
    await page.locator('[data-testid="phase-marker"][data-verdict="STOP"]').waitFor()
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-autonomous.png') })
  })

}, { shot })
