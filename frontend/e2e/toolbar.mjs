// Checks that the chat toolbar does not move when the context meter appears (the first usage
// event of a session), with a scripted backend (Playwright routes), and saves both screenshots.
//   npm run build && npx vite preview --port 4173 &  node e2e/toolbar.mjs http://localhost:4173 out-dir
import { chromium } from 'playwright-core'

const url = process.argv[2] ?? 'http://localhost:4173'
const out = process.argv[3] ?? '.'
const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

const time = new Date().toISOString()
const session = { id: 's1', title: 'Why are the tests flaky?', created: time, updated: time, model: 'qwen3:8b', events: 3 }
const before = [
  { session: 's1', seq: 1, time, type: 'user', data: { text: 'Why are the tests flaky?' } },
  { session: 's1', seq: 2, time, type: 'assistant', data: { text: 'They wait on a string that can appear early.', model: 'qwen3:8b' } },
]
const after = [...before, { session: 's1', seq: 3, time, type: 'usage', data: { model: 'qwen3:8b', input_tokens: 21834, cache_read_tokens: 20100, output_tokens: 212, context_window: 32768 } }]
const status = { provider: 'ollama', base_url: 'http://127.0.0.1:11434', reachable: true, default_model: 'qwen3:8b', models: [{ name: 'qwen3:8b', provider: 'ollama', context_window: 32768 }] }

async function scripted(page, transcript) {
  await page.route('**/api/call/**', async (route) => {
    const result = {
      'SessionService.List': [session],
      'SessionService.Transcript': transcript,
      'SettingsService.Get': { providers: [{ name: 'ollama', type: 'ollama' }], models: { main: 'qwen3:8b' }, thinking: 'off', api_keys: { ollama: 0 } },
      'ModelService.Status': status,
      'ChatService.Streaming': [],
    }[route.request().url().split('/api/call/')[1]]
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ result: result ?? null }) })
  })
  await page.route('**/api/events**', (route) => route.fulfill({ status: 200, contentType: 'text/event-stream', body: 'retry: 600000\n\n' }))
}

// The left edge of every toolbar control but the meter, by its place in the toolbar.
async function edges(page) {
  return page.$$eval('header.topbar > *', (els) =>
    els.filter((e) => !e.querySelector('[data-testid="context-meter"]')).map((e) => `${e.tagName}.${e.className.split(' ')[0]}@${Math.round(e.getBoundingClientRect().left)}`),
  )
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args })
let failed = false
try {
  const seen = {}
  for (const [name, transcript] of [['toolbar-before', before], ['toolbar-after', after]]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 400 } })
    await scripted(page, transcript)
    await page.goto(url)
    await page.getByText('They wait on a string').waitFor()
    if (name === 'toolbar-after') await page.getByTestId('context-meter').waitFor()
    seen[name] = await edges(page)
    await page.screenshot({ path: `${out}/${name}.png`, clip: { x: 0, y: 0, width: 1280, height: 120 } })
    await page.close()
  }
  console.log('without the meter:', seen['toolbar-before'].join(' '))
  console.log('with the meter:   ', seen['toolbar-after'].join(' '))
  if (seen['toolbar-before'].join() !== seen['toolbar-after'].join()) {
    console.error('FAIL the toolbar moved when the context meter appeared')
    failed = true
  } else console.log('toolbar: pass')
} finally {
  await browser.close()
}
process.exit(failed ? 1 : 0)
