// End-to-end check of installing a skill by dropping a folder on Settings' Skills section:
// the drop carries a directory entry (as a file manager's drag does: webkitGetAsEntry), the
// window walks it, sends the files, and the skill shows in the list.
//
//   TOFU_URL=http://127.0.0.1:PORT/#token=T  [TOFU_E2E_SHOT=shot.png]  node e2e/skillfolder.e2e.mjs
//
// Headless Chromium cannot drag a real folder from the desktop, so the drop event is made in
// the page with a directory entry over in-memory files; everything after it is the app's own
// code. The Go side (TestSkillFolderDropEndToEnd) checks the files landed in the skills folder.
import { check, step, openPage, runScript, requireEnv } from './lib.mjs'

const url = process.env.TOFU_URL
requireEnv('TOFU_URL')
const { browser, page, pageErrors, tid } = await openPage({ timeout: 30000 })

await runScript('skill folder e2e', { browser, page, pageErrors }, async () => {
  await step('open Settings at the Skills section', async () => {
    await page.goto(url)
    await tid('settings-open').click()
    await tid('settings-skills').waitFor({ state: 'visible' })
    await tid('settings-skills').scrollIntoViewIfNeeded()
  })
  await step('drop a skill folder', async () => {
    await page.evaluate(() => {
      const files = {
        'SKILL.md': '---\nname: release-notes\ndescription: Write the release notes from the changelog.\n---\nRead references/style.md, then run scripts/collect.sh.\n',
        'references/style.md': 'One line per change, newest first.\n',
        'scripts/collect.sh': '#!/bin/sh\ngit log --oneline "$1"..HEAD\n',
      }
      const fileEntry = (path, body) => ({
        isFile: true,
        isDirectory: false,
        name: path.split('/').pop(),
        fullPath: '/release-notes/' + path,
        file: (ok) => ok(new File([body], path.split('/').pop())),
      })
      const dirEntry = (prefix) => {
        const names = new Set()
        const children = []
        for (const [path, body] of Object.entries(files)) {
          if (!path.startsWith(prefix)) continue
          const rest = path.slice(prefix.length)
          const [head, ...tail] = rest.split('/')
          if (tail.length === 0) children.push(fileEntry(path, body))
          else if (!names.has(head)) {
            names.add(head)
            children.push(dirEntry(prefix + head + '/'))
          }
        }
        let given = false
        return {
          isFile: false,
          isDirectory: true,
          name: prefix.split('/').filter(Boolean).pop() ?? 'release-notes',
          fullPath: '/release-notes/' + prefix.replace(/\/$/, ''),
          createReader: () => ({
            readEntries: (ok) => {
              ok(given ? [] : children)
              given = true
            },
          }),
        }
      }
      const root = dirEntry('')
      const target = document.querySelector('label.drop')
      const ev = new Event('drop', { bubbles: true, cancelable: true })
      Object.defineProperty(ev, 'dataTransfer', { value: { items: [{ webkitGetAsEntry: () => root }], files: [] } })
      target.dispatchEvent(new Event('dragover', { bubbles: true, cancelable: true }))
      target.dispatchEvent(ev)
    })
    await tid('settings-skill-note').waitFor({ state: 'visible' })
    const note = await tid('settings-skill-note').innerText()
    check(note.includes('Installed release-notes'), `note: ${note}`)
  })
  await step('the skill is listed', async () => {
    await page.waitForFunction(() => document.querySelector('[data-testid="settings-skills"]')?.textContent?.includes('Write the release notes'))
    await tid('settings-skill-note').scrollIntoViewIfNeeded()
    if (process.env.TOFU_E2E_SHOT) await page.screenshot({ path: process.env.TOFU_E2E_SHOT })
  })
})
