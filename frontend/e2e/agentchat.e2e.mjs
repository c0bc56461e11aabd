// End-to-end check of a conversation whose model is a coding agent (TestAgentConversationEndToEnd):
// the real Claude Code on the scripted model, against a running `tofu serve`.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T TOFU_E2E_WORKSPACE=DIR [TOFU_E2E_SHOT=shot.png] node e2e/agentchat.e2e.mjs
//
// Steps: new conversation in the workspace → the model picker offers "Claude Code" among the
// agents → pick it, ask to write hello.txt: running it is asked (allowed for the session),
// Claude Code's Write is a tool card (ok) and its answer the reply → ask a follow-up: not asked
// again, the answer comes from the resumed session. Exit 0 on
// success, 1 with a message on failure.
import { check, step, openPage, runScript, requireEnv, setWorkspace } from './lib.mjs'

const url = process.env.TOFU_URL
const shot = process.env.TOFU_E2E_SHOT
const workspace = process.env.TOFU_E2E_WORKSPACE
requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout: Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 60000) })

await runScript('agentchat e2e', { browser, page, pageErrors }, async () => {
  await page.goto(url)
  await step('a conversation in the workspace with Claude Code as its model', async () => {
    await tid('new-conversation').click()
    await setWorkspace(page, workspace)
    await page.locator('[data-testid="model-picker"] optgroup option[value="agent:claude"]').waitFor({ state: 'attached' })
    await tid('model-picker').selectOption('agent:claude')
  })
  await step('the message goes to Claude Code: its Write is a card, its answer the reply', async () => {
    await tid('composer').fill('Please write hello.txt')
    await tid('composer').press('Enter')
    // Running the agent is asked once: allowed for this conversation.
    await tid('approval-card').waitFor()
    check((await tid('approval-subject').innerText()).includes('claude # runs this conversation'), 'the card does not name the agent')
    await tid('approve-session').click()
    await page.getByText('Claude wrote hello.txt.').first().waitFor()
    const card = page.locator('[data-testid="tool-card"][data-tool="Write"]')
    check((await card.getAttribute('data-status')) === 'ok', 'the Write card is not ok')
    check((await card.innerText()).includes('hello.txt'), 'the card does not name the file')
  })
  await step('a follow-up resumes its session', async () => {
    await tid('composer').fill('what did you write?')
    await tid('composer').press('Enter')
    await page.getByText('Earlier in this session I wrote hello.txt.').first().waitFor()
    check((await tid('approval-card').count()) === 0, 'asked again for the follow-up')
    if (shot) await page.screenshot({ path: shot })
  })
  console.log('e2e: agent conversation ok')
})
