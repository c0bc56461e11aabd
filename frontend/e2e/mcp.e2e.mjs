// End-to-end check of MCP in the window's front end against a running `tofu serve` whose
// settings hold server-everything and a server that cannot start (TestMCPEndToEnd).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T [TOFU_E2E_SHOT=shot.png] node e2e/mcp.e2e.mjs
//
// Steps: Settings → the MCP section shows "everything" connected with its tools and "broken"
// failed with the fix → switch a tool off (the line says "n of m tools on") → close → type "/"
// in the composer: the prompt menu → complete /everything:args-prompt, add city=Paris, send:
// the user's message is the prompt's text → the attach menu lists the servers' resources:
// attach features.md (a chip), send: the message shows the chip and the (scripted) model
// answers that it read it → a new conversation in TOFU_E2E_WORKSPACE asks for the long
// operation: its running tool card shows the progress bar and "n/8", then the call ends.
// Screenshots: TOFU_E2E_SHOT plus -settings, -resource and -progress. Exit 0 on success, 1
// with a message on failure.
import { check, newConversation, step, openPage, runScript, requireEnv, setWorkspace } from './lib.mjs'

const url = process.env.TOFU_URL
const shot = process.env.TOFU_E2E_SHOT
const workspace = process.env.TOFU_E2E_WORKSPACE
requireEnv('TOFU_URL')

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout: Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000) })
const server = (name) => page.locator(`[data-testid="mcp-server"][data-name="${name}"]`)

await runScript('mcp e2e', { browser, page, pageErrors }, async () => {
  await page.goto(url)
  await step('Settings: everything connected, broken failed with the fix', async () => {
    await tid('settings-open').click()
    await page.waitForFunction(() => {
      const s = document.querySelector('[data-testid="mcp-server"][data-name="everything"] [data-testid="mcp-status"]')
      return s && s.textContent.startsWith('Connected')
    })
    const err = await server('broken').getByTestId('mcp-error').innerText()
    check(/"uvx" was not found/.test(err) && /install uv/.test(err), `broken: ${err}`)
  })
  await step('switch a tool off', async () => {
    await server('everything').locator('details.tools summary').click()
    await server('everything').getByTestId('mcp-tool').first().uncheck()
    await page.waitForFunction(() => /tools on$/.test(document.querySelector('[data-testid="mcp-server"][data-name="everything"] [data-testid="mcp-status"]')?.textContent ?? ''))
    if (shot) {
      await server('everything').scrollIntoViewIfNeeded()
      await page.screenshot({ path: shot.replace(/(\.png)?$/, '-settings.png') })
    }
    await page.keyboard.press('Escape')
    await tid('settings-dialog').waitFor({ state: 'hidden' })
  })
  await step('the composer offers the prompts and sends one', async () => {
    const box = tid('composer')
    await box.click()
    await box.type('/args')
    await tid('prompt-menu').waitFor()
    check((await tid('prompt-option').first().innerText()).includes('/everything:args-prompt'), 'the menu does not offer args-prompt')
    await box.press('Enter')
    await box.type('city=Paris')
    check((await box.inputValue()) === '/everything:args-prompt city=Paris', `completed to ${await box.inputValue()}`)
    await box.press('Enter')
    await page.getByText("What's weather in Paris?").first().waitFor()
    if (shot) await page.screenshot({ path: shot })
  })
  await step('attach a resource: the menu lists them, the chip goes with the message', async () => {
    await tid('attach-button').click()
    await tid('attach-menu').waitFor()
    await page.locator('[data-testid="attach-option"]').first().waitFor()
    const options = await tid('attach-option').count()
    check(options === 9, `the menu offers ${options} resources, not server-everything's 7 and 2 templates`)
    await tid('attach-filter').fill('features')
    await page.locator('[data-testid="attach-option"][data-uri="demo://resource/static/document/features.md"]').click()
    await tid('attach-menu').waitFor({ state: 'detached' })
    const chip = await tid('attachment-chip').innerText()
    check(chip.includes('features.md') && chip.includes('everything'), `the chip: ${JSON.stringify(chip)}`)
    await tid('composer').fill('What does it say?')
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-resource-composer.png') })
    await tid('composer').press('Enter')
    await page.getByText('I read the attached features.md.').first().waitFor()
    const sent = page.locator('[data-testid="message-user"] [data-testid="attachment-chip"]')
    check((await sent.count()) === 1, 'the sent message does not show its chip')
    check((await tid('attachment-remove').count()) === 0, 'the composer kept the attachment after sending')
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-resource.png') })
  })
  if (workspace) {
    await step('a long call shows its progress live on the card', async () => {
      await newConversation(page)
      await setWorkspace(page, workspace)
      await tid('composer').fill('run the long operation')
      await tid('composer').press('Enter')
      const card = page.locator('[data-testid="tool-card"][data-tool="mcp__everything__trigger-long-running-operation"]')
      await card.locator('[data-testid="tool-progress"]').waitFor()
      // One look at the card while it says 2/8 to 7/8 (a second look could come after its end).
      const seen = await (await page.waitForFunction(() => {
        const card = document.querySelector('[data-testid="tool-card"][data-tool="mcp__everything__trigger-long-running-operation"]')
        const progress = card?.querySelector('[data-testid="tool-progress"]')?.textContent?.trim() ?? ''
        return /^[2-7]\/8/.test(progress) && { status: card.getAttribute('data-status'), bars: card.querySelectorAll('[role="progressbar"]').length }
      })).jsonValue()
      check(seen.status === 'running', `the card is ${seen.status}, not running`)
      check(seen.bars === 1, `${seen.bars} progress bars`)
      if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-progress.png') })
      await page.getByText('The long operation finished.').first().waitFor({ timeout: 60000 })
      check((await card.getAttribute('data-status')) === 'ok', 'the call did not end ok')
      check((await card.locator('[data-testid="tool-progress"]').count()) === 0, 'the finished card still shows progress')
    })
    await step('the Tools menu says the broken server is not running (not "when needed")', async () => {
      // Regression (issue 36): a failed MCP server was listed as available "when needed".
      const title = await tid('tools-open').evaluate((b) => b.getAttribute('title') ?? b.getAttribute('data-tip'))
      check(/Not running: broken/.test(title ?? ''), `the Tools chip's title: ${title}`)
      await tid('tools-open').click()
      const row = tid('tools-family-mcp:broken')
      await row.getByTestId('tools-failed').waitFor()
      check((await tid('tools-offer-mcp:broken').count()) === 0, 'the broken server is offered "when needed"')
      if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-tools.png') })
      await page.keyboard.press('Escape')
    })
  }
  console.log('e2e: MCP ok')
})
