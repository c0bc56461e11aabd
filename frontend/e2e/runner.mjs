// Runs the e2e scripts of one test process (app/cli/e2e_test.go starts it) in one Node process,
// against one Chromium they share. Each script, run alone, starts Node and loads playwright-core
// (~0.6 s of CPU) and launches a Chromium (~1.5 s of two cores); here both are paid once.
//
// Protocol: it prints "ready" once Chromium is up; then each line on its standard input is a JSON
// request {"script": "chat.e2e.mjs", "env": {"TOFU_URL": "…", …}} and each answer one JSON line
// {"code": N, "output": "…"}: the exit code and what the script printed, as Node would have given
// them had the script run alone (`node e2e/<script>` with that environment). It closes Chromium and
// exits when its standard input ends, that is when the test process does.
//
// A script runs as it does alone: its module is imported fresh (a query makes the URL new), with
// process.env the request's environment (plus TOFU_E2E_BROWSER, the shared Chromium), put back
// afterwards; process.exit ends the script, not the runner; process.exitCode is its code when
// it ends without calling exit; an uncaught error is code 1 with its stack. Each opens a context of
// its own in the browser (lib.mjs's openPage): no cookie or storage passes from one to the next.
// Scripts run one at a time (process.env is one for the process).
import { AsyncLocalStorage } from 'node:async_hooks'
import { createInterface } from 'node:readline'
import { format } from 'node:util'
import { dirname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import { launchOptions } from './lib.mjs'

const here = dirname(fileURLToPath(import.meta.url)) // a script is named from here, or by its full path
const server = await chromium.launchServer(launchOptions)

/** Thrown by process.exit inside a script: it unwinds the script, and the runner reads the code. */
class Exit extends Error {
  constructor(code) {
    super(`process.exit(${code})`)
    this.code = code
  }
}

// The run each piece of code belongs to follows it through awaits, timers and event handlers
// (AsyncLocalStorage): what a script prints, and how it ends, go to its own run, even if it is
// still doing something after the runner answered for it (then it goes to the runner's error
// output, naming the script, and the runner goes on).
const runs = new AsyncLocalStorage()
const realExit = process.exit
process.exit = (code) => {
  throw new Exit(code ?? process.exitCode ?? 0)
}

function capture(stream) {
  return (...args) => {
    const text = format(...args) + '\n'
    const run = runs.getStore()
    if (run && !run.ended) run.output.push(text)
    else if (run) process.stderr.write(`e2e runner: ${run.script}, after it ended: ${text}`)
    else (stream === 'err' ? process.stderr : process.stdout).write(text)
  }
}
console.log = console.info = capture('out')
console.error = console.warn = capture('err')

// An error a script does not catch, in its body or in a callback (a timer, an event handler),
// ends it as Node would end it alone: code 1 with the stack; process.exit ends it with its code.
function uncaught(err) {
  const run = runs.getStore()
  if (!run) {
    process.stderr.write(`e2e runner: ${err instanceof Error ? err.stack : String(err)}\n`)
    realExit(1)
  }
  if (err instanceof Exit) return run.finish(err.code)
  const text = `${err instanceof Error ? err.stack : String(err)}\n`
  if (run.ended) process.stderr.write(`e2e runner: ${run.script}, after it ended: ${text}`)
  else run.output.push(text)
  run.finish(1)
}
process.on('uncaughtException', uncaught)
process.on('unhandledRejection', uncaught)

/** Makes process.env exactly vars. */
function setEnv(vars) {
  for (const k of Object.keys(process.env)) if (!(k in vars)) delete process.env[k]
  Object.assign(process.env, vars)
}

let count = 0
async function run({ script, env = {} }) {
  const saved = { ...process.env }
  setEnv({ ...env, TOFU_E2E_BROWSER: server.wsEndpoint() })
  process.exitCode = undefined
  let finish
  const done = new Promise((resolve) => (finish = resolve))
  const run = {
    script,
    output: [],
    ended: false,
    finish(code) {
      if (run.ended) return
      run.ended = true
      finish(Number(code) || 0)
    },
  }
  runs.run(run, () =>
    import(`${pathToFileURL(resolve(here, script)).href}?run=${++count}`).then(
      () => run.finish(process.exitCode ?? 0),
      uncaught,
    ),
  )
  const code = await done
  process.exitCode = undefined
  setEnv(saved)
  return { code, output: run.output.join('') }
}

process.stdout.write('ready\n')
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue
  let answer
  try {
    answer = await run(JSON.parse(line))
  } catch (err) {
    answer = { code: 1, output: `e2e runner: ${err instanceof Error ? err.stack : String(err)}\n` }
  }
  process.stdout.write(JSON.stringify(answer) + '\n')
}
await server.close()
realExit(0)
