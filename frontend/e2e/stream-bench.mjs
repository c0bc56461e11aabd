// Measures what a streamed reply costs the page: main-thread time per token while the scripted
// model streams 1,000 tokens at 100 tokens/s (send "bench"). Prints a JSON report.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T [CHROMIUM=/usr/bin/chromium] node e2e/stream-bench.mjs
import { chromium } from 'playwright-core'

const url = process.env.TOFU_URL
if (!url) {
  console.error('stream-bench: set TOFU_URL to the address `tofu serve` printed')
  process.exit(2)
}
const tokens = 1000
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
page.setDefaultTimeout(60000)
const cdp = await page.context().newCDPSession(page)
await cdp.send('Performance.enable')
const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]))

await page.goto(url)
await page.getByTestId('new-conversation').click()
await page.getByTestId('composer').fill('bench')
const before = await metrics()
const t0 = Date.now()
// Count animation frames and the longest gap between them while the reply streams.
await page.evaluate(() => {
  window.__frames = []
  const tick = (t) => { window.__frames.push(t); if (!window.__stopFrames) requestAnimationFrame(tick) }
  requestAnimationFrame(tick)
})
await page.getByTestId('composer').press('Enter')
await page.locator('[data-testid="message-assistant"][data-streaming="true"]').waitFor()
await page.locator('[data-testid="message-assistant"][data-streaming="false"]').last().waitFor()
const wall = (Date.now() - t0) / 1000
const after = await metrics()
const frames = await page.evaluate(() => { window.__stopFrames = true; return window.__frames })
let worstGap = 0
for (let i = 1; i < frames.length; i++) worstGap = Math.max(worstGap, frames[i] - frames[i - 1])
const words = (await page.locator('[data-testid="message-assistant"]').last().innerText()).split(/\s+/).filter(Boolean).length

const d = (k) => after[k] - before[k]
console.log(JSON.stringify({
  tokens,
  words_rendered: words,
  wall_s: +wall.toFixed(2),
  main_thread_busy_ms_per_token: +((d('TaskDuration') * 1000) / tokens).toFixed(3),
  script_ms_per_token: +((d('ScriptDuration') * 1000) / tokens).toFixed(3),
  layout_ms_per_token: +((d('LayoutDuration') * 1000) / tokens).toFixed(3),
  style_ms_per_token: +((d('RecalcStyleDuration') * 1000) / tokens).toFixed(3),
  main_thread_busy_pct: +((d('TaskDuration') / wall) * 100).toFixed(1),
  frames: frames.length,
  worst_frame_gap_ms: +worstGap.toFixed(1),
  js_heap_mb: +(after.JSHeapUsedSize / 1048576).toFixed(1),
}, null, 2))
await browser.close()
