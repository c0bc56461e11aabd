// End-to-end check of the swarm card against a running `tofu serve` whose model is scripted to
// spawn three agents: a researcher (#0), a coder (#1) whose edit asks for approval, and a
// writer (#2) on both (TestSwarmCardEndToEnd).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_WORKSPACE=/tmp/ws (holds notes.txt) \
//   [TOFU_E2E_SHOT=shot.png] [TOFU_E2E_TIMEOUT_MS=30000] [CHROMIUM=/usr/bin/chromium] node e2e/swarm.e2e.mjs
//
// Steps: new conversation → set the workspace → ask → the spawn_agents card shows the swarm
// card with three rows (roles, objectives, the writer's dependencies) → the coder waits: its
// row says so and its session opens inline with an approval card that names the agent →
// Allow once → every row is done and the counts say 3 done → a click on the researcher opens
// its session (its brief and its reply) → the turn ends with the synthesis. The screenshot is
// the swarm card. Exit 0 on success, 1 with a message on failure.
import { check, step, openPage, runScript, requireEnv, setWorkspace } from './lib.mjs'

const url = process.env.TOFU_URL
const workspace = process.env.TOFU_E2E_WORKSPACE
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000)

requireEnv('TOFU_URL', 'TOFU_E2E_WORKSPACE')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 1000, timeout })
const agent = (i, state) => page.locator(`[data-testid="swarm-agent"][data-index="${i}"]${state ? `[data-state="${state}"]` : ''}`)


await runScript('swarm e2e', { browser, page, pageErrors }, async () => {
  await step('open the app, create a conversation, set the workspace', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app could not reach the backend')
    await tid('new-conversation').click()
    await setWorkspace(page, workspace)
  })

  await step('ask: the spawn_agents card shows three agents with roles and dependencies', async () => {
    await tid('composer').fill('Find out what tofu is made of and fix the notes, with a team')
    await tid('composer').press('Enter')
    await page.locator('[data-testid="tool-card"][data-tool="spawn_agents"] [data-testid="swarm-card"]').waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="swarm-agent"]').length === 3)
    const roles = await page.locator('[data-testid="swarm-agent"]').evaluateAll((els) => els.map((e) => `${e.dataset.index}:${e.dataset.role}`))
    check(roles.join(' ') === '0:researcher 1:coder 2:writer', `rows: ${roles.join(' ')}`)
    const writer = await agent(2).innerText()
    check(writer.includes('write the summary') && writer.includes('← #0 #1'), `the writer's row: ${JSON.stringify(writer)}`)
  })

  await step("the coder waits: its session opens with an approval card naming it", async () => {
    await agent(1, 'waiting').waitFor()
    const asking = await agent(1).getByTestId('swarm-asking').innerText()
    check(asking.includes('notes.txt'), `the row does not say what it asks: ${JSON.stringify(asking)}`)
    const child = agent(1).getByTestId('swarm-child')
    await child.getByTestId('approval-card').waitFor()
    const by = await child.getByTestId('approval-agent').innerText()
    check(by.includes('agent 1 (coder: fix the spelling in notes.txt)'), `the approval card does not name the agent: ${JSON.stringify(by)}`)
    check((await agent(2, 'pending').count()) === 1, 'the writer started before the coder finished')
    if (shot) await page.locator('[data-testid="swarm-card"]').screenshot({ path: shot.replace(/\.png$/, '-waiting.png') })
    await child.getByTestId('approve-once').click()
  })

  await step('every agent finishes: rows done, counts, the synthesis ends the turn', async () => {
    for (const i of [0, 1, 2]) await agent(i, 'done').waitFor()
    const counts = await tid('swarm-counts').innerText()
    check(counts.includes('3 done'), `counts: ${JSON.stringify(counts)}`)
    await page.locator('[data-testid="message-assistant"][data-streaming="false"]', { hasText: 'The team is done' }).last().waitFor()
    await tid('stop').waitFor({ state: 'detached' })
    check((await tid('message-error').count()) === 0, 'the turn failed')
  })

  await step("a click on the researcher opens its session: brief and reply", async () => {
    await agent(0).getByTestId('swarm-agent-row').click()
    const child = agent(0).getByTestId('swarm-child')
    await child.waitFor()
    check(!!(await child.getAttribute('data-session')), 'the child view names no session')
    await child.getByText('Tofu is made of soybeans, water and a coagulant.').waitFor()
    check((await child.locator('details.brief').count()) === 1, 'the brief is not shown')
    if (shot) await page.locator('[data-testid="swarm-card"]').screenshot({ path: shot })
  })

}, { failShot: shot?.replace(/\.png$/, '-failed.png') })
