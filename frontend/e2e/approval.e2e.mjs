// End-to-end check of approvals and the permission rules against a running `tofu serve` whose
// model is scripted to run one command per message (TestApprovalEndToEnd).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_WORKSPACE=/tmp/ws \
//   [TOFU_E2E_SHOT=shot.png] [TOFU_E2E_TIMEOUT_MS=30000] [CHROMIUM=/usr/bin/chromium] node e2e/approval.e2e.mjs
//
// Steps: new conversation in the workspace → "touch": the card offers once / this session /
// always in this workspace (+ every workspace, until Tofu closes) / deny → Always allow → the
// command runs → "touch" again: no card → "outside": a read outside the workspace offers only
// once / deny → Deny → Settings lists the always-allow rule with where it came from → add a
// deny rule for `git push*` → Save → "push": denied by the rule, no card. Screenshots:
// <shot>-card.png, <shot>-card-menu.png, <shot>-once.png, <shot>-rules.png.
import { check, step, openPage, runScript, requireEnv, setWorkspace } from './lib.mjs'

const url = process.env.TOFU_URL
const workspace = process.env.TOFU_E2E_WORKSPACE
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)

requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout })
const command = (id, status) => page.locator(`[data-testid="tool-card"][data-call-id="${id}"]${status ? `[data-status="${status}"]` : ''}`)
const shotPath = (suffix) => shot.replace(/(\.png)?$/, `-${suffix}.png`)

async function send(text) {
  await tid('composer').fill(text)
  await tid('composer').press('Enter')
}

async function turnEnded(text) {
  await page.locator('[data-testid="message-assistant"][data-streaming="false"]', { hasText: text }).last().waitFor()
  await tid('stop').waitFor({ state: 'detached' })
}


await runScript('approval e2e', { browser, page, pageErrors }, async () => {
  await step('open the app, a conversation in the workspace', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app could not reach the backend')
    await tid('new-conversation').click()
    await page.locator('[data-testid="session-item"].active').waitFor()
    await setWorkspace(page, workspace)
  })

  await step('a command asks: once, this session, always in this workspace, deny', async () => {
    await send('touch the marker')
    await tid('approval-card').waitFor()
    check((await tid('approval-subject').innerText()).trim() === 'touch marker', 'the card does not show the exact command')
    for (const id of ['approve-once', 'approve-session', 'approve-always', 'approve-more', 'approve-deny']) {
      check((await tid(id).count()) === 1, `the card has no ${id} button`)
    }
    check((await tid('approval-once').count()) === 0, 'a rememberable call says it can only be allowed once')
    if (shot) await tid('approval-card').screenshot({ path: shotPath('card') })
    await tid('approve-more').click()
    await tid('approve-always-global').waitFor()
    check((await tid('approve-workspace').count()) === 1, 'the menu does not offer "until Tofu closes"')
    if (shot) await page.screenshot({ path: shotPath('card-menu') })
    await tid('approve-more').click()
    await tid('approve-always-global').waitFor({ state: 'detached' })
  })

  await step('Always allow in this workspace: the command runs', async () => {
    await tid('approve-always').click()
    await tid('approval-card').waitFor({ state: 'detached' })
    await command('call_touch', 'ok').waitFor()
    const text = await command('call_touch').innerText()
    check(text.includes('always allowed in this workspace'), `the card does not say how it was allowed: ${JSON.stringify(text)}`)
    await turnEnded('Touched')
  })

  await step('the same command again: no card', async () => {
    await send('touch the marker again')
    await command('call_touch', 'ok').nth(1).waitFor()
    await turnEnded('Touched')
    check((await tid('approval-card').count()) === 0, 'the rule did not hold: a card asks')
  })

  await step('outside the workspace: only once or deny', async () => {
    await send('read the hostname outside')
    await tid('approval-card').waitFor()
    check((await tid('approval-once').count()) === 1, 'the card does not say it can only be allowed once')
    for (const id of ['approve-session', 'approve-always', 'approve-more']) {
      check((await tid(id).count()) === 0, `a once-only card offers ${id}`)
    }
    if (shot) await tid('approval-card').screenshot({ path: shotPath('once') })
    await tid('approve-deny').click()
    await command('call_outside', 'denied').waitFor()
    await turnEnded('Not reading')
  })

  await step('an edit shows its diff before Allow, and the reason as text', async () => {
    await send('edit the notes')
    await tid('approval-card').waitFor()
    const diff = await tid('approval-diff').innerText()
    check(diff.includes('notes.txt') && diff.includes('-draft: <todo>') && diff.includes('+final: a && b'), `the card does not show the change: ${JSON.stringify(diff)}`)
    const reason = (await tid('approval-reason').count()) ? await tid('approval-reason').innerText() : ''
    check(!reason.includes('`'), `the reason shows raw backticks: ${JSON.stringify(reason)}`)
    if (shot) await tid('approval-card').screenshot({ path: shotPath('edit') })
    await tid('approve-deny').click()
    await command('call_edit', 'denied').waitFor()
    await turnEnded('Left the notes')
  })

  await step('Settings lists the rule with where it came from; add a deny rule', async () => {
    await tid('settings-open').click()
    await tid('settings-dialog').waitFor({ state: 'visible' })
    const rows = tid('settings-rule-row')
    await rows.first().waitFor() // the dialog reads config.json again as it opens
    check((await rows.count()) === 1, `expected one rule, found ${await rows.count()}`)
    check((await rows.first().getByTestId('settings-rule-pattern').inputValue()) === 'touch marker', 'the rule is not the command')
    check((await rows.first().getByTestId('settings-rule-action').inputValue()) === 'allow', 'the rule does not allow')
    check((await rows.first().getByTestId('settings-rule-scope').inputValue()) === workspace, 'the rule is not scoped to the workspace')
    const source = await rows.first().getByTestId('settings-rule-source').innerText()
    check(/^“Always allow” on \d{4}-\d\d-\d\d, session \w{8}$/.test(source), `where it came from: ${JSON.stringify(source)}`)
    await tid('settings-add-rule').click()
    const added = rows.nth(1)
    await added.getByTestId('settings-rule-action').selectOption('deny')
    await added.getByTestId('settings-rule-pattern').fill('git push*')
    await tid('settings-rules').scrollIntoViewIfNeeded()
    if (shot) await page.screenshot({ path: shotPath('rules') })
    await tid('settings-save').click()
    await tid('settings-dialog').waitFor({ state: 'hidden' })
    await tid('settings-open').click()
    await tid('settings-dialog').waitFor({ state: 'visible' })
    await rows.nth(1).waitFor()
    check((await rows.count()) === 2, 'the added rule was not saved')
    check((await rows.nth(1).getByTestId('settings-rule-source').innerText()) === 'added in Settings', 'the added rule does not say where it came from')
    await page.keyboard.press('Escape')
    await tid('settings-dialog').waitFor({ state: 'hidden' })
  })

  await step('the deny rule denies git push without a card', async () => {
    await send('push it')
    await command('call_push', 'denied').waitFor()
    await turnEnded('Not pushing')
    check((await tid('approval-card').count()) === 0, 'a denied command asked')
  })

}, { shot })
