// A Chromium the e2e scripts of one test process share (app/cli/e2e_test.go starts it): it
// prints its endpoint, which the scripts connect to (TOFU_E2E_BROWSER; lib.mjs's openPage), and
// closes when its standard input does, that is when the test process ends. Each script gets a
// context of its own (no cookie or storage carried from one to the next); a launch per script
// cost ~1.5 s of the two cores.
import { chromium } from 'playwright-core'
import { launchOptions } from './lib.mjs'

const server = await chromium.launchServer(launchOptions)
console.log(server.wsEndpoint())
process.stdin.resume()
process.stdin.on('end', async () => {
  await server.close()
  process.exit(0)
})
