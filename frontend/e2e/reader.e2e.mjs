// End-to-end check of the paper reader against a running `tofu serve` whose model answers
// questions about a paper with a citation of a page it was given (TestReaderEndToEnd scripts it).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  TOFU_E2E_PDF=paper.pdf \
//   [TOFU_E2E_QUESTION='…'] [TOFU_E2E_SHOT=shot.png] [TOFU_E2E_TIMEOUT_MS=60000] node e2e/reader.e2e.mjs
//
// Steps: open the PDF with the sidebar's file input → the reader shows it (a page canvas with
// non-blank pixels, a text layer) → ask a question → an answer with a citation → click it →
// the PDF scrolls to the cited page, which is the first page drawn after the click, and the page
// box says the page in view → a far jump typed in the page box: the same. Exit 0 on success, 1
// with a message on failure.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
const pdf = process.env.TOFU_E2E_PDF
const question = process.env.TOFU_E2E_QUESTION ?? 'On which date did the Fed warn that the US economy was at risk of a recession?'
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 60000)

requireEnv('TOFU_URL', 'TOFU_E2E_PDF')

const { browser, page, pageErrors } = await openPage({ width: 1400, height: 900, timeout })
const offsite = []
page.on('request', (r) => {
  const u = new URL(r.url())
  if (!['127.0.0.1', 'localhost'].includes(u.hostname) && !['data:', 'blob:'].includes(u.protocol)) offsite.push(r.url())
})

/** Waits until the PDF has not scrolled for five animation frames (a smooth scroll ended). */
async function settled(page) {
  await page.evaluate(() => {
    window.__still = 0
    window.__lastTop = -1
  })
  await page.waitForFunction(() => {
    const t = document.querySelector('.pages')?.scrollTop ?? -1
    window.__still = t === window.__lastTop ? window.__still + 1 : 0
    window.__lastTop = t
    return window.__still >= 5
  }, undefined, { polling: 'raf' })
}

/** The number in the page box, and the page that shows the most of itself in the PDF pane. */
async function pageBoxAndView(page) {
  return page.evaluate(() => {
    const sc = document.querySelector('.pages').getBoundingClientRect()
    let inView = 0
    let most = 0
    for (const el of document.querySelectorAll('[data-testid="pdf-page"]')) {
      const r = el.getBoundingClientRect()
      const seen = Math.min(r.bottom, sc.bottom) - Math.max(r.top, sc.top)
      if (seen > most) [most, inView] = [seen, Number(el.dataset.page)]
    }
    return { box: Number(document.querySelector('[data-testid="pdf-page-input"]').value), inView }
  })
}

/** The sequence number of the last page drawn (data-drawn counts draws). */
async function lastDrawn(page) {
  return page.evaluate(() => Math.max(0, ...[...document.querySelectorAll('[data-testid="pdf-page"][data-drawn]')].map((e) => Number(e.dataset.drawn))))
}

/** Checks that page n is the first page drawn after draw number `from` (unless it was drawn already). */
async function drawnFirst(page, n, from, t0) {
  const seq = Number((await page.locator(`[data-testid="pdf-page"][data-page="${n}"]`).getAttribute('data-drawn')) ?? 0)
  if (seq > 0 && seq <= from) {
    console.log(`     page ${n} was drawn before the jump`)
    return
  }
  await page.waitForFunction((n) => Number(document.querySelector(`[data-testid="pdf-page"][data-page="${n}"]`)?.dataset.drawn ?? 0) > 0, n)
  console.log(`     page ${n} drawn ${Date.now() - t0} ms after the jump`)
  const order = await page.evaluate(
    (from) =>
      [...document.querySelectorAll('[data-testid="pdf-page"][data-drawn]')]
        .map((e) => [Number(e.dataset.drawn), Number(e.dataset.page)])
        .filter(([s]) => s > from)
        .sort((a, b) => a[0] - b[0])
        .map(([, p]) => p),
    from,
  )
  check(order[0] === n, `pages drawn after the jump, in order: ${order.join(', ')}; page ${n} was not first`)
}


await runScript('reader e2e', { browser, page, pageErrors }, async () => {
  await step('load', async () => {
    await page.goto(url)
    await page.getByTestId('paper-drop').waitFor()
  })

  await step('open the PDF', async () => {
    await page.getByTestId('paper-file').setInputFiles(pdf)
    await page.getByTestId('reader').waitFor()
    await page.getByTestId('paper-item').first().waitFor()
  })

  await step('see it rendered', async () => {
    await page.getByTestId('pdf-page').first().waitFor()
    await page.waitForFunction(() => {
      const c = document.querySelector('[data-testid="pdf-page"] canvas')
      if (!c || c.width < 100) return false
      const ctx = c.getContext('2d')
      const d = ctx.getImageData(0, 0, c.width, c.height).data
      let dark = 0
      for (let i = 0; i < d.length; i += 16) if (d[i] < 128 && d[i + 3] > 0) dark++
      return dark > 200
    })
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="pdf-page"] .textLayer span').length > 20)
    const n = await page.getByTestId('pdf-page').count()
    check(n > 1, `only ${n} page(s) shown`)
    // No blank white page without a word (issue 36): a page not drawn yet says so, a drawn
    // one has no such note left.
    const states = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="pdf-page"]')].map((p) => ({ drawn: !!p.dataset.drawn, note: p.querySelector('[data-testid="pdf-page-waiting"]')?.textContent?.trim() ?? '' })),
    )
    check(states.every((s) => (s.drawn ? s.note === '' : /^(Page \d+|Drawing page \d+…)$/.test(s.note))), `pages without a sign of work: ${JSON.stringify(states)}`)
    if (shot) {
      // The last pages, just scrolled to: each says it is being drawn until it is.
      await page.locator('.pages').evaluate((el) => { el.scrollTop = el.scrollHeight })
      const last = await page.locator('[data-testid="pdf-page"]').last().evaluate((p) => p.querySelector('[data-testid="pdf-page-waiting"]')?.textContent?.trim() ?? 'drawn')
      console.log(`     the last page just after the scroll: ${last}`)
      await page.screenshot({ path: shot.replace(/\.png$/, '-waiting.png') })
      await page.locator('.pages').evaluate((el) => { el.scrollTop = 0 })
      await page.locator('.pages[data-idle="true"]').waitFor()
    }
  })

  let cited = 0
  await step('ask and get a cited answer', async () => {
    const page1 = page.locator('[data-testid="pdf-page"][data-page="1"]')
    const firstDraw = await page1.getAttribute('data-drawn')
    check(firstDraw, 'page 1 has not been drawn')
    await page.getByTestId('tab-qa').click()
    await page.getByTestId('qa-input').fill(question)
    await page.getByTestId('qa-input').press('Enter')
    const answer = page.locator('[data-testid="qa-answer"][data-streaming="false"]').last()
    await answer.waitFor()
    await answer.getByTestId('citation').first().waitFor()
    cited = Number(await answer.getByTestId('citation').first().getAttribute('data-page'))
    check(cited > 1, `citation names page ${cited}`)
    await answer.getByTestId('qa-sources').waitFor()
    // The question gave the paper its Q&A session (a new view of the paper, shown before the
    // answer): the PDF was not loaded and drawn again for it.
    const draw = await page1.getAttribute('data-drawn')
    check(draw === firstDraw, `page 1 was drawn again for the question (draw ${firstDraw} → ${draw})`)
  })

  let drawnBefore = 0
  let clickedAt = 0
  await step('click the citation: the PDF scrolls there', async () => {
    const scroller = page.locator('.pages')
    const before = await scroller.evaluate((el) => el.scrollTop)
    // Nothing being drawn when the citation is clicked, so what is drawn next is its doing.
    await page.locator('.pages[data-idle="true"]').waitFor()
    drawnBefore = await lastDrawn(page)
    clickedAt = Date.now()
    await page.locator('[data-testid="qa-answer"]').last().getByTestId('citation').first().click()
    await page.waitForFunction(
      (n) => {
        const sc = document.querySelector('.pages')
        const pg = document.querySelector(`[data-testid="pdf-page"][data-page="${n}"]`)
        if (!sc || !pg) return false
        const a = sc.getBoundingClientRect()
        const b = pg.getBoundingClientRect()
        return b.top < a.top + a.height / 2 && b.bottom > a.top + 40
      },
      cited,
    )
    const after = await scroller.evaluate((el) => el.scrollTop)
    check(after > before, `the PDF did not scroll (${before} → ${after})`)
    check((await page.getByTestId('cited-box').count()) > 0, 'the cited passage is not highlighted')
    console.log(`     cited page ${cited}, scrolled ${before} → ${after}px`)
  })

  await step('the cited page is drawn first', async () => {
    await drawnFirst(page, cited, drawnBefore, clickedAt)
  })

  await step('after the jump the page box says the page in view', async () => {
    await settled(page)
    const { box, inView } = await pageBoxAndView(page)
    check(inView === cited, `the cited page ${cited} is not the page in view (${inView})`)
    check(box === inView, `the page box says ${box}, the page in view is ${inView}`)
    if (shot) await page.screenshot({ path: shot.replace(/\.png$/, '-citation.png') })
  })

  await step('a far jump from the page box: drawn first, the box says it', async () => {
    const total = await page.getByTestId('pdf-page').count()
    const far = Math.min(total, cited + 12)
    await page.locator('.pages[data-idle="true"]').waitFor()
    const before = await lastDrawn(page)
    const t0 = Date.now()
    await page.getByTestId('pdf-page-input').fill(String(far))
    await page.getByTestId('pdf-page-input').press('Enter')
    await drawnFirst(page, far, before, t0)
    await settled(page)
    const { box, inView } = await pageBoxAndView(page)
    check(inView === far, `page ${far} is not in view after the jump (${inView})`)
    check(box === inView, `the page box says ${box}, the page in view is ${inView}`)
  })

  await step('zoom in: the page in view is drawn again at the new size and stays in view', async () => {
    await page.locator('.pages[data-idle="true"]').waitFor()
    const { inView } = await pageBoxAndView(page)
    const before = await lastDrawn(page)
    const width = await page.locator(`[data-testid="pdf-page"][data-page="${inView}"] canvas`).evaluate((c) => c.width)
    const t0 = Date.now()
    await page.getByTestId('zoom-in').click()
    // The page was drawn before the zoom: wait for its new draw (drawnFirst would take the old
    // one for it), whose canvas has the new size.
    await page.waitForFunction(({ n, from }) => Number(document.querySelector(`[data-testid="pdf-page"][data-page="${n}"]`)?.dataset.drawn ?? 0) > from, { n: inView, from: before })
    await drawnFirst(page, inView, before, t0)
    const after = await page.locator(`[data-testid="pdf-page"][data-page="${inView}"] canvas`).evaluate((c) => c.width)
    check(after > width, `the canvas of page ${inView} is ${after}px wide after zooming in (was ${width})`)
    await settled(page)
    const now = await pageBoxAndView(page)
    check(now.inView === inView && now.box === inView, `after zooming in the page in view is ${now.inView} and the box says ${now.box} (was ${inView})`)
  })

  if (shot) await page.screenshot({ path: shot })
  check(offsite.length === 0, `requests left the machine: ${offsite.join(', ')}`)
}, { failShot: shot })
