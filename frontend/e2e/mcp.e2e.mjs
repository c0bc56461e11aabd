// End-to-end check of MCP in the window's front end against a running `tofu serve` whose
// settings hold server-everything and a server that cannot start (TestMCPEndToEnd).
//
//   TOFU_URL=http://127.0.0.1:PORT/?token=T [TOFU_E2E_SHOT=shot.png] node e2e/mcp.e2e.mjs
//
// Steps: Settings → the MCP section shows "everything" connected with its tools and "broken"
// failed with the fix → switch a tool off (the line says "n of m tools on") → close → type "/"
// in the composer: the prompt menu → complete /everything:args-prompt, add city=Paris, send:
// the user's message is the prompt's text. Exit 0 on success, 1 with a message on failure.
import { Failure, check, step, openPage } from './lib.mjs'

const url = process.env.TOFU_URL
const shot = process.env.TOFU_E2E_SHOT
if (!url) {
  console.error('e2e: set TOFU_URL to the address `tofu serve` printed (with ?token=…)')
  process.exit(2)
}

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout: Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000) })
const server = (name) => page.locator(`[data-testid="mcp-server"][data-name="${name}"]`)

try {
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
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`)
  console.log('e2e: MCP ok')
} catch (err) {
  console.error(err instanceof Failure ? `FAIL ${err.message}` : err)
  process.exitCode = 1
} finally {
  await browser.close()
}
