// Shared pieces of the end-to-end scripts: headless Chromium (Debian's, never downloaded, with
// the flags that keep it off the network) and small step/check helpers with readable output.
import { chromium } from 'playwright-core'

/** A check that failed: the script prints its message and exits 1. */
export class Failure extends Error {}

export function check(cond, msg) {
  if (!cond) throw new Failure(msg)
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

/** Launches Chromium and opens a page of the given size; page errors are collected. */
export async function openPage({ width = 1280, height = 900, timeout = 30000 } = {}) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  const page = await browser.newPage({ viewport: { width, height } })
  page.setDefaultTimeout(timeout)
  const pageErrors = []
  page.on('pageerror', (e) => pageErrors.push(String(e)))
  const tid = (id) => page.getByTestId(id)
  return { browser, page, pageErrors, tid }
}
