// A model pull in Settings → Local models, against `tofu serve`, a real Ollama and a registry
// the Go test serves (app/cli/models_e2e_test.go holds the model's weights at half way).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_PULL_NAME=127.0.0.1:PORT/ns/model:tag \
//   [TOFU_E2E_SHOT=shot.png] node e2e/pull.e2e.mjs
//
// Steps: open Settings → the Local models section shows Ollama running and no model → type the
// name, Pull → the bar stops at half with bytes, speed and time left (screenshot) → Cancel →
// the bar says cancelled and how to continue. Exit 0 on success, 1 with a message on failure.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const [url, name] = requireEnv('TOFU_URL', 'TOFU_PULL_NAME')
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 60000)

const { browser, page, pageErrors, tid: pageTid } = await openPage({ width: 1280, height: 900, timeout })
// The first-run help shows the same section while no model is installed: look in Settings only.
const dialog = () => pageTid('settings-dialog')
const tid = (id) => dialog().getByTestId(id)

await runScript('pull e2e', { browser, page, pageErrors }, async () => {
  await step('open Settings at Local models', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    await pageTid('settings-open').click()
    await dialog().waitFor({ state: 'visible' })
    await dialog().locator('#s-local').scrollIntoViewIfNeeded()
    await dialog().locator('[data-testid="local-models"]', { hasText: 'Ollama at' }).waitFor()
    check((await tid('local-model').count()) === 0, 'a model is listed before the pull')
  })

  await step('pull: the bar stops half way with bytes, speed and time left', async () => {
    await tid('pull-name').fill(name)
    await tid('pull-model').click()
    const words = tid('pull-words')
    // Half the weights; the template and config (a few hundred bytes) come after them.
    const bar = dialog().locator('[data-testid="pull-progress"] [role="progressbar"]')
    await dialog().locator('[data-testid="pull-words"]', { hasText: 'left' }).waitFor()
    const text = await words.innerText()
    check(/^[\d.]+ KB of [\d.]+ KB · [\d.]+ [KMG]?B\/s · .+ left$/.test(text), `no bytes, speed and time left: ${text}`)
    const pct = Number(await bar.getAttribute('aria-valuenow'))
    check(pct >= 45 && pct <= 50, `the bar is at ${pct}%`)
    await tid('pull-progress').scrollIntoViewIfNeeded()
    if (shot) await page.screenshot({ path: shot })
    console.log(`     mid-pull: ${text} (${pct}%)`)
  })

  await step('cancel: the bar says how to continue', async () => {
    await tid('cancel-pull').click()
    await dialog().locator('[data-testid="pull-progress"][data-state="cancelled"]').waitFor()
    const text = await tid('pull-words').innerText()
    check(text.includes('pull again to continue'), `after cancel: ${text}`)
  })
}, { failShot: shot?.replace(/\.png$/, '-failed.png') })
