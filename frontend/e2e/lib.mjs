// Shared pieces of the end-to-end scripts: headless Chromium (Debian's, never downloaded, with
// the flags that keep it off the network) and small step/check helpers with readable output.
import { chromium } from 'playwright-core'

/** A check that failed: the script prints its message and exits 1. */
export class Failure extends Error {}

export function check(cond, msg) {
  if (!cond) throw new Failure(msg)
}

/**
 * Waits until a form field shows want (a string, or a RegExp it matches), within the page's
 * timeout; fails with msg and what the field shows. A panel or dialog often appears before the
 * data call that fills its fields has answered: reading the value at once races that call.
 */
export async function checkValue(locator, want, msg) {
  const matches = (v) => (want instanceof RegExp ? want.test(v) : v === want)
  const el = await locator.elementHandle()
  try {
    await locator.page().waitForFunction(
      ({ el, src, flags, text }) => (src === null ? el.value === text : new RegExp(src, flags).test(el.value)),
      { el, src: want instanceof RegExp ? want.source : null, flags: want instanceof RegExp ? want.flags : '', text: want instanceof RegExp ? '' : want },
    )
  } catch {
    const v = await locator.inputValue()
    if (!matches(v)) throw new Failure(`${msg}: ${JSON.stringify(v)}`)
  }
}

/** Runs one named step, printing "ok   name (N ms)"; any error becomes a Failure naming the step. */
export async function step(name, fn) {
  const t0 = Date.now()
  try {
    await fn()
  } catch (err) {
    if (err instanceof Failure) throw err
    throw new Failure(`${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`)
  }
  console.log(`ok   ${name} (${Date.now() - t0} ms)`)
}

/** How every e2e Chromium is launched (here, or shared by runner.mjs). */
export const launchOptions = {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
}

/**
 * Opens a page of the given size in a fresh context of the shared Chromium (TOFU_E2E_BROWSER,
 * runner.mjs) or of one launched for this script; page errors are collected.
 */
export async function openPage({ width = 1280, height = 900, timeout = 30000 } = {}) {
  const shared = process.env.TOFU_E2E_BROWSER
  const browser = shared
    ? await chromium.connect(shared)
    : await chromium.launch(launchOptions)
  const page = await browser.newPage({ viewport: { width, height } })
  page.setDefaultTimeout(timeout)
  const pageErrors = []
  page.on('pageerror', (e) => pageErrors.push(String(e)))
  const tid = (id) => page.getByTestId(id)
  return { browser, page, pageErrors, tid }
}

/** Reads the environment variables a script needs; it exits 2 naming them when one is unset. */
export function requireEnv(...names) {
  if (names.some((n) => !process.env[n])) {
    console.error(`e2e: set ${names.join(' and ')} (TOFU_URL is the address \`tofu serve\` printed, with #token=…)`)
    process.exit(2)
  }
  return names.map((n) => process.env[n])
}

/**
 * Runs a script's steps on the page openPage opened, then checks the page raised no error and
 * exits: 0 printing "PASS name", or 1 printing "FAIL why" (after a screenshot to failShot when
 * given). A screenshot to shot, when given, is taken at the end either way.
 */
export async function runScript(name, { browser, page, pageErrors }, steps, { shot, failShot, fullPage = false } = {}) {
  let code = 0
  try {
    await steps()
    check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`)
    console.log(`PASS ${name}`)
  } catch (err) {
    code = 1
    console.error(`FAIL ${err instanceof Failure ? err.message : err instanceof Error ? err.stack : String(err)}`)
    if (failShot) await page.screenshot({ path: failShot, fullPage }).catch(() => {})
  } finally {
    if (shot) {
      await page.screenshot({ path: shot }).catch((e) => console.error(`screenshot failed: ${e}`))
      console.log(`screenshot: ${shot}`)
    }
    await browser.close()
  }
  process.exit(code)
}

/** Sets the open conversation's workspace from the composer's chip. */
export async function setWorkspace(page, workspace) {
  await page.getByTestId('workspace-chip').click()
  await page.getByTestId('workspace-input').fill(workspace)
  await page.getByTestId('workspace-input').press('Enter')
  await page.locator(`[data-testid="workspace-chip"][data-workspace="${workspace}"]`).waitFor()
}

/**
 * Starts a new conversation with the sidebar's button and waits until it is the open one (the
 * open conversation must not be an empty new one, which the button keeps). The click only asks
 * Go to create it: a message or a workspace typed meanwhile waits for it (AppState.openOrNew),
 * but any other action on the open conversation acts on the one open before, or on none.
 */
export async function newConversation(page) {
  const active = '[data-testid="session-item"].active'
  await page.getByTestId('new-conversation').waitFor()
  const before = await page.evaluate((sel) => document.querySelector(sel)?.getAttribute('data-session-id') ?? '', active)
  await page.getByTestId('new-conversation').click()
  const id = await page.waitForFunction(
    ({ sel, before }) => {
      const id = document.querySelector(sel)?.getAttribute('data-session-id')
      return id && id !== before ? id : null
    },
    { sel: active, before },
  )
  return id.jsonValue()
}
