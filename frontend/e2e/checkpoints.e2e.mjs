// End-to-end check of "Undo changes since this message" against `tofu serve` with a scripted
// agent that edits notes.txt and creates plan.md (each approved once): the message offers the
// undo → with notes.txt changed by hand since, the undo is refused with the diff of that change
// ([TOFU_E2E_REFUSED_SHOT]) → once notes.txt is back as the agent left it, the confirmation
// lists both files with their diffs (TOFU_E2E_SHOT) → Undo → both files are back.
//
//   TOFU_URL=… TOFU_E2E_WORKSPACE=/path node e2e/checkpoints.e2e.mjs
import { readFileSync, writeFileSync } from 'node:fs'
import { check, step, openPage, runScript, requireEnv, setWorkspace } from './lib.mjs'

const url = process.env.TOFU_URL
const workspace = process.env.TOFU_E2E_WORKSPACE
const shot = process.env.TOFU_E2E_SHOT
const refusedShot = process.env.TOFU_E2E_REFUSED_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)
requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')

const { browser, page, pageErrors, tid } = await openPage({ width: 1100, height: 820, timeout })
const notes = `${workspace}/notes.txt`


await runScript('checkpoints e2e', { browser, page, pageErrors }, async () => {
  await step('a conversation in the workspace', async () => {
    await page.goto(url)
    await tid('new-conversation').click()
    await setWorkspace(page, workspace)
  })

  await step('the agent edits notes.txt and creates plan.md (approved once each)', async () => {
    await tid('composer').fill('Fix the notes and write a plan')
    await tid('composer').press('Enter')
    await page.locator('[data-testid="approval-subject"]', { hasText: 'notes.txt' }).waitFor()
    await tid('approve-once').click()
    await page.locator('[data-testid="approval-subject"]', { hasText: 'plan.md' }).waitFor()
    await tid('approve-once').click()
    await tid('approval-card').waitFor({ state: 'detached' })
    await page.locator('[data-testid="message-assistant"][data-streaming="false"]', { hasText: 'Done with the notes' }).waitFor()
    await tid('stop').waitFor({ state: 'detached' })
    check(readFileSync(notes, 'utf8').includes('soybeans'), 'the edit did not happen')
  })

  let agents = ''
  await step('a file changed by hand since: the undo is refused, with the diff', async () => {
    agents = readFileSync(notes, 'utf8')
    writeFileSync(notes, agents + "the user's own line\n")
    const button = tid('undo-changes')
    await button.waitFor()
    check((await button.innerText()).includes('2 files'), `the button says ${JSON.stringify(await button.innerText())}`)
    await button.click()
    await tid('undo-refused').waitFor()
    const diff = await tid('undo-conflict-diff').innerText()
    check(diff.includes("+the user's own line"), `the refusal's diff: ${JSON.stringify(diff)}`)
    if (refusedShot) await page.screenshot({ path: refusedShot })
    check((await tid('undo-confirm').count()) === 0, 'a refused undo can be confirmed')
    await tid('undo-cancel').click()
    check(readFileSync(notes, 'utf8').endsWith("the user's own line\n"), 'a refused undo wrote the file')
  })

  await step('back as the agent left it: the confirmation shows both files with diffs', async () => {
    writeFileSync(notes, agents)
    await tid('undo-changes').click()
    await tid('undo-step').first().waitFor()
    check((await tid('undo-step').count()) === 2, `${await tid('undo-step').count()} files listed`)
    const text = await tid('undo-dialog').innerText()
    check(text.includes('notes.txt') && text.includes('plan.md') && text.includes('-tofu is made of soybeans') && text.includes('+tofu is made of soy'), `the confirmation: ${JSON.stringify(text.slice(0, 600))}`)
    if (shot) await page.screenshot({ path: shot })
  })

  await step('Undo: the files are back and the button is gone', async () => {
    await tid('undo-confirm').click()
    await tid('undo-done').waitFor()
    await tid('undo-cancel').click()
    check(readFileSync(notes, 'utf8') === '# Notes\ntofu is made of soy\n', `notes.txt = ${JSON.stringify(readFileSync(notes, 'utf8'))}`)
    await tid('undo-changes').waitFor({ state: 'detached' })
  })

}, { failShot: '/tmp/checkpoints-fail.png' })
