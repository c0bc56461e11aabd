// End-to-end check that `tofu serve` answers only its own page: Tofu's page sets no cookie
// (a browser sends a host's cookies to every port of it, so another local server would get
// it), and a page served from another local port tries every way a page can reach the API;
// none reads or changes anything; the real UI still works afterwards.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_EVIL_URL=http://127.0.0.1:OTHER/  node e2e/origin.e2e.mjs
//
// The page at TOFU_EVIL_URL is plain HTML with no script; this script runs the attacks from it
// (page.evaluate runs in that page's origin, as its own script would). The Go side
// (TestOriginEndToEnd) checks the log afterwards: no conversation named "evil…" exists.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const evilUrl = process.env.TOFU_EVIL_URL
requireEnv('TOFU_URL', 'TOFU_EVIL_URL')
const tofu = new URL(url).origin

const { browser, page, pageErrors, tid } = await openPage({ timeout: 30000 })

await runScript('origin e2e', { browser, page, pageErrors }, async () => {
  await step('open the app: no cookie is set, the token leaves the address bar', async () => {
    await page.goto(url)
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app could not reach the backend')
    const cookies = await page.context().cookies(tofu)
    check(cookies.length === 0, `Tofu set cookies, which other local ports would get: ${JSON.stringify(cookies)}`)
    check(!page.url().includes('token'), `the token is still in the address: ${page.url()}`)
  })

  await step('a page on another local port cannot call, read or stream', async () => {
    await page.goto(evilUrl)
    check(new URL(page.url()).origin !== tofu, 'the attack page has the same origin as Tofu')
    const results = await page.evaluate(async (tofu) => {
      const out = {}
      const create = `${tofu}/api/call/SessionService.Create`
      const attempt = async (name, fn) => {
        try {
          out[name] = await fn()
        } catch (err) {
          out[name] = `blocked: ${String(err).slice(0, 80)}`
        }
      }
      // A JSON call needs a CORS preflight, which Tofu does not grant.
      await attempt('json', async () => {
        const r = await fetch(create, { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: '["evil json"]' })
        return `read HTTP ${r.status}: ${await r.text()}`
      })
      // A simple request goes out with the cookie and no preflight; the reply is opaque, so only
      // the server can stop its effect.
      await attempt('no-cors', async () => {
        await fetch(create, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: '["evil no-cors"]' })
        return 'sent'
      })
      // A form posted into a frame: a top-level-like navigation carrying the cookie.
      await attempt('form', () => new Promise((resolve) => {
        const frame = document.createElement('iframe')
        frame.name = 'sink'
        document.body.append(frame)
        const form = document.createElement('form')
        form.method = 'POST'
        form.action = create
        form.enctype = 'text/plain'
        form.target = 'sink'
        const input = document.createElement('input')
        input.name = '["evil form", "'
        input.value = '"]'
        form.append(input)
        document.body.append(form)
        frame.onload = () => resolve('submitted')
        form.submit()
        setTimeout(() => resolve('submitted (no load event)'), 5000)
      }))
      await attempt('read list', async () => {
        const r = await fetch(`${tofu}/api/call/SessionService.List`, { method: 'POST', credentials: 'include', body: '[]' })
        return `read HTTP ${r.status}: ${(await r.text()).slice(0, 80)}`
      })
      await attempt('events', () => new Promise((resolve) => {
        const src = new EventSource(`${tofu}/api/events`, { withCredentials: true })
        src.onmessage = (m) => { src.close(); resolve(`read: ${m.data.slice(0, 80)}`) }
        src.onopen = () => { src.close(); resolve('opened') }
        src.onerror = () => { src.close(); resolve('blocked: error') }
      }))
      await attempt('img', () => new Promise((resolve) => {
        const img = new Image()
        img.onload = () => resolve('loaded')
        img.onerror = () => resolve('blocked: error')
        img.src = `${tofu}/api/events`
      }))
      await attempt('script', () => new Promise((resolve) => {
        const s = document.createElement('script')
        s.onload = () => resolve('loaded')
        s.onerror = () => resolve('blocked: error')
        s.src = `${tofu}/index.html`
        document.body.append(s)
      }))
      return out
    }, tofu)
    console.log(`     attack results: ${JSON.stringify(results)}`)
    for (const name of ['json', 'read list', 'events', 'img', 'script']) {
      check(String(results[name]).startsWith('blocked'), `${name} got through: ${results[name]}`)
    }
  })

  await step('the real UI still works', async () => {
    await page.goto(tofu + '/')
    await page.waitForSelector('[data-testid="new-conversation"], [data-testid="backend-down"]')
    check((await tid('backend-down').count()) === 0, 'the app cannot reach the backend after the attacks')
    const before = await tid('session-item').count()
    await tid('new-conversation').click()
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="session-item"]').length > n, before)
  })

})
