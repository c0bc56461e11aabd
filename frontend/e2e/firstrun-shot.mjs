// Screenshots of the first-run empty state against `tofu serve` with no Ollama, then after
// "Try the demo" and one answered turn:  node e2e/firstrun-shot.mjs URL OUT_DIR [before]
// TestFirstRunEndToEnd passes TOFU_URL and TOFU_E2E_SHOT instead (the shots go beside it).
import { dirname } from 'node:path'
import { openPage } from './lib.mjs'

const url = process.argv[2] ?? process.env.TOFU_URL
const out = process.argv[3] ?? dirname(process.env.TOFU_E2E_SHOT ?? './x')
const label = process.argv[4] ?? 'after'
const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 860 })
try {
  await page.goto(url)
  await tid('empty-state').waitFor()
  await tid('banner').waitFor()
  await page.screenshot({ path: `${out}/${label}-no-ollama.png` })
  if (label === 'after') {
    await tid('first-run').waitFor()
    await tid('first-run-demo').click()
    await tid('demo-note').waitFor()
    await page.screenshot({ path: `${out}/after-demo-started.png` })
    await tid('composer').fill('What can Tofu do?')
    await tid('composer').press('Enter')
    await page.getByText('Hello from the scripted model').first().waitFor()
    await page.getByText('hello, tofu').first().waitFor()
    await page.screenshot({ path: `${out}/after-demo-reply.png` })
    await tid('banner').waitFor({ state: 'detached' })
  }
  if (pageErrors.length) throw new Error(pageErrors.join('\n'))
  console.log('ok')
} catch (e) { await page.screenshot({ path: `${out}/failed.png` }); throw e } finally {
  await browser.close()
}
