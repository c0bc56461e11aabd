// First run with Ollama installed but not running, against `tofu serve`
// (app/cli/models_e2e_test.go puts a real ollama on PATH and points Tofu at a free port).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T [TOFU_E2E_SHOT=shot.png] node e2e/startollama.e2e.mjs
//
// Steps: the first-run help offers Start Ollama (screenshot) → click → Ollama answers, the pull
// field offers the suggested model. Exit 0 on success, 1 with a message on failure.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const [url] = requireEnv('TOFU_URL')
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 60000)

const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout })

await runScript('start ollama e2e', { browser, page, pageErrors }, async () => {
  await step('the first-run help offers to start Ollama', async () => {
    await page.goto(url)
    await tid('first-run').waitFor()
    await tid('start-ollama').waitFor()
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-before.png') })
  })

  await step('Start Ollama: it answers, and the suggested model is offered', async () => {
    await tid('start-ollama').click()
    await page.locator('[data-testid="local-models"]', { hasText: 'started by Tofu' }).waitFor()
    const value = await tid('pull-name').inputValue()
    check(value === 'qwen3:8b', `the pull field says ${JSON.stringify(value)}`)
    await page.locator('[data-testid="first-run"][data-kind="no_models"]').waitFor()
  })
}, { shot, failShot: shot?.replace(/\.png$/, '-failed.png') })
