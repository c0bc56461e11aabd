// End-to-end check of the paper reader against a running `tofu serve` whose model answers
// questions about a paper with a citation of a page it was given (TestReaderEndToEnd scripts it).
//
//   TOFU_URL=http://127.0.0.1:PORT/?token=T  TOFU_E2E_PDF=paper.pdf \
//   [TOFU_E2E_QUESTION='…'] [TOFU_E2E_SHOT=shot.png] [TOFU_E2E_TIMEOUT_MS=60000] node e2e/reader.e2e.mjs
//
// Steps: open the PDF with the sidebar's file input → the reader shows it (a page canvas with
// non-blank pixels, a text layer) → ask a question → an answer with a citation → click it →
// the PDF scrolls to the cited page. Exit 0 on success, 1 with a message on failure.
import { Failure, check, step, openPage } from './lib.mjs'

const url = process.env.TOFU_URL
const pdf = process.env.TOFU_E2E_PDF
const question = process.env.TOFU_E2E_QUESTION ?? 'On which date did the Fed warn that the US economy was at risk of a recession?'
const shot = process.env.TOFU_E2E_SHOT
const timeout = Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 60000)

if (!url || !pdf) {
  console.error('e2e: set TOFU_URL (the address `tofu serve` printed) and TOFU_E2E_PDF (a PDF file)')
  process.exit(2)
}

const { browser, page, pageErrors } = await openPage({ width: 1440, height: 900, timeout })
const offsite = []
page.on('request', (r) => {
  const u = new URL(r.url())
  if (!['127.0.0.1', 'localhost'].includes(u.hostname) && !['data:', 'blob:'].includes(u.protocol)) offsite.push(r.url())
})

let code = 0
try {
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
  })

  let cited = 0
  await step('ask and get a cited answer', async () => {
    await page.getByTestId('tab-qa').click()
    await page.getByTestId('qa-input').fill(question)
    await page.getByTestId('qa-input').press('Enter')
    const answer = page.locator('[data-testid="qa-answer"][data-streaming="false"]').last()
    await answer.waitFor()
    await answer.getByTestId('citation').first().waitFor()
    cited = Number(await answer.getByTestId('citation').first().getAttribute('data-page'))
    check(cited > 1, `citation names page ${cited}`)
    await answer.getByTestId('qa-sources').waitFor()
  })

  await step('click the citation: the PDF scrolls there', async () => {
    const scroller = page.locator('.pages')
    const before = await scroller.evaluate((el) => el.scrollTop)
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

  if (shot) await page.screenshot({ path: shot })
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`)
  check(offsite.length === 0, `requests left the machine: ${offsite.join(', ')}`)
  console.log('reader e2e: pass')
} catch (err) {
  code = 1
  console.error(`FAIL ${err instanceof Error ? err.message : String(err)}`)
  if (shot) await page.screenshot({ path: shot }).catch(() => {})
} finally {
  await browser.close()
}
process.exit(code)
