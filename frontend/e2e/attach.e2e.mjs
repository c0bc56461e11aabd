// End-to-end check of attachments in the window's front end against a running `tofu serve`
// whose scripted model serves a vision model (gemma3:4b) and a text-only one (qwen3:8b), the
// latter the settings' main model (TestAttachmentsEndToEnd).
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T TOFU_E2E_IMAGE=shot.png TOFU_E2E_FILE=notes.md \
//     [TOFU_E2E_SHOT=shot.png] node e2e/attach.e2e.mjs
//
// Steps: pick an image and a text file with the composer's file button (two chips: the
// image's thumbnail, the file's tokens) → paste a screenshot (a third chip) → drop a file on
// the conversation, outside the composer (the overlay says it attaches; a fourth chip) → send to qwen3:8b:
// refused with the reason, the draft and the chips stay → choose gemma3:4b, send: the message
// shows the images as thumbnails and the file as a chip, the model answers → reload: the
// thumbnails are still there. Screenshots: TOFU_E2E_SHOT (the transcript) plus -composer and
// -refused. Exit 0 on success, 1 with a message on failure.
import { readFileSync } from 'node:fs'
import { check, newConversation, step, openPage, runScript, requireEnv } from './lib.mjs'

const [url, image, file] = requireEnv('TOFU_URL', 'TOFU_E2E_IMAGE', 'TOFU_E2E_FILE')
const shot = process.env.TOFU_E2E_SHOT
const { browser, page, pageErrors, tid } = await openPage({ width: 1280, height: 900, timeout: Number(process.env.TOFU_E2E_TIMEOUT_MS ?? 30000) })
const composerChips = '[data-testid="composer-form"] [data-testid="attachment-chip"]'
const sentThumbs = '[data-testid="message-user"] [data-testid="attachment-thumb"]'

await runScript('attach e2e', { browser, page, pageErrors }, async () => {
  await page.goto(url)
  await newConversation(page)
  await step('pick an image and a file: a thumbnail and a chip with its tokens', async () => {
    await tid('attach-input').setInputFiles([image, file])
    await page.locator(composerChips).nth(1).waitFor()
    await page.locator(`${composerChips}[data-kind="image"] [data-testid="attachment-thumb"]`).waitFor()
    const tokens = await page.locator(`${composerChips}[data-kind="file"] [data-testid="attachment-tokens"]`).innerText()
    check(/^\d+ tokens$/.test(tokens), `the file chip says ${JSON.stringify(tokens)}`)
  })
  await step('paste a screenshot: a third chip', async () => {
    const b64 = readFileSync(image).toString('base64')
    await tid('composer').focus()
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
      const dt = new DataTransfer()
      dt.items.add(new File([bytes], 'image.png', { type: 'image/png' }))
      document.querySelector('[data-testid="composer"]').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }))
    }, b64)
    await page.locator(composerChips).nth(2).waitFor()
    const names = await page.locator(composerChips).evaluateAll((els) => els.map((e) => e.getAttribute('data-uri')))
    check(/^screenshot-\d{8}-\d{6}\.png$/.test(names[2] ?? ''), `the pasted image is named ${names[2]}`)
  })
  await step('drop a file on the window (outside the composer): a fourth chip', async () => {
    const dt = await page.evaluateHandle(() => {
      const d = new DataTransfer()
      d.items.add(new File(['dropped on the conversation\n'], 'dropped.txt', { type: 'text/plain' }))
      return d
    })
    await page.dispatchEvent('[data-testid="chat-pane"]', 'dragover', { dataTransfer: dt })
    await tid('window-drop').waitFor()
    check((await tid('window-drop').innerText()).includes('Drop to attach to your message'), 'the overlay does not say the drop attaches')
    await page.dispatchEvent('[data-testid="chat-pane"]', 'drop', { dataTransfer: dt })
    await page.locator(composerChips).nth(3).waitFor()
    check((await page.locator(composerChips).nth(3).getAttribute('data-uri')) === 'dropped.txt', 'the dropped file is not the fourth chip')
    await tid('composer').fill('What is in these?')
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-composer.png') })
  })
  await step('a text-only model refuses the images before sending; nothing is lost', async () => {
    check((await tid('model-picker').inputValue()) === 'qwen3:8b', `the model is ${await tid('model-picker').inputValue()}`)
    await tid('composer').press('Enter')
    const notice = await tid('composer-problem').innerText()
    check(notice.includes('qwen3:8b cannot see images; choose a vision model such as gemma3:4b'), `the composer says: ${notice}`)
    check((await tid('composer').inputValue()) === 'What is in these?', 'the draft was lost')
    check((await page.locator(composerChips).count()) === 4, 'the attachments were lost')
    check((await page.locator('[data-testid="message-user"]').count()) === 0, 'the refused message was recorded')
    if (shot) await page.screenshot({ path: shot.replace(/(\.png)?$/, '-refused.png') })
  })
  await step('a vision model gets them: the transcript shows the images and the file', async () => {
    await tid('model-picker').selectOption('gemma3:4b')
    await tid('composer').press('Enter')
    await page.getByText('I see a red square with a blue diagonal.').first().waitFor()
    await page.locator(sentThumbs).nth(1).waitFor()
    const files = page.locator('[data-testid="message-user"] [data-testid="attachment-chip"][data-kind="file"]')
    check((await files.count()) === 2 && (await files.first().innerText()).includes('notes.md'), 'the sent message does not show the file chips')
    check((await page.locator(composerChips).count()) === 0, 'the composer kept the attachments after sending')
  })
  await step('after a reload the thumbnails come back from the log', async () => {
    await page.reload()
    await page.locator(sentThumbs).nth(1).waitFor()
    const ok = await page.locator(sentThumbs).evaluateAll((els) => els.every((e) => e.naturalWidth === 64 && e.getAttribute('src').startsWith('data:image/png;base64,')))
    check(ok, 'a thumbnail did not load')
  })
}, { shot })
