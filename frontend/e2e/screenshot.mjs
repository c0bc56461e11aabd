// Screenshots of the built front end without the Go backend, for looking at the UI.
//   npm run build && npx vite preview --port 4173 &  node e2e/screenshot.mjs http://localhost:4173 out-dir
// 1. no backend at all: the "cannot reach the Tofu backend" state;
// 2. a scripted backend (Playwright routes, here only: the app ships no fake data) in light and dark;
// 3. an agent session's token panel (tokens-light, tokens-dark).
import { chromium } from 'playwright-core'

const url = process.argv[2] ?? 'http://localhost:4173'
const out = process.argv[3] ?? '.'
const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

const now = Date.now()
const iso = (minAgo) => new Date(now - minAgo * 60_000).toISOString()
const sessions = [
  { id: 's1', title: 'Attention is all you need — summary', created: iso(50), updated: iso(2), model: 'qwen3:8b', events: 6 },
  { id: 's2', title: 'BM25 vs dense retrieval', created: iso(3000), updated: iso(1500), events: 4, bridge: 'telegram' },
  { id: 's3', title: 'Go context cancellation', created: iso(9000), updated: iso(8000), events: 2 },
]
const answer = [
  'The paper replaces recurrence with **self-attention**. Three ideas carry it:',
  '',
  '1. *Scaled dot-product attention*: `softmax(QKᵀ/√d_k)V`.',
  '2. Multi-head attention, so each head can attend to a different subspace.',
  '3. Positional encodings, since nothing else orders the tokens.',
  '',
  '| model | BLEU (EN-DE) | training cost |',
  '|---|---|---|',
  '| Transformer (big) | 28.4 | 2.3·10¹⁹ FLOPs |',
  '| ConvS2S | 25.2 | 9.6·10¹⁸ FLOPs |',
  '',
  '```python',
  'def attention(q, k, v):',
  '    scores = q @ k.T / math.sqrt(k.shape[-1])',
  '    return softmax(scores) @ v  # weights sum to 1',
  '```',
  '',
  'See [the paper](https://arxiv.org/abs/1706.03762) for the ablations.',
].join('\n')
const events = [
  { session: 's1', seq: 1, time: iso(5), type: 'user', data: { text: 'Summarize "Attention Is All You Need" in a few lines, with the key formula.' } },
  { session: 's1', seq: 2, time: iso(4), type: 'assistant', data: { text: answer, reasoning: 'The user wants a short summary. Mention attention, heads, positions.', model: 'qwen3:8b' } },
  { session: 's1', seq: 3, time: iso(4), type: 'usage', data: { model: 'qwen3:8b', input_tokens: 1834, output_tokens: 212, duration_ms: 4210 } },
  { session: 's1', seq: 4, time: iso(3), type: 'user', data: { text: 'And how does it compare on long documents?' } },
  { session: 's1', seq: 5, time: iso(3), type: 'error', data: { kind: 'model_not_found', message: 'model "llama3.1:70b" not found', hint: 'Run `ollama pull llama3.1:70b`, or pick another model.' } },
]
// An agent session for the token panel: three turns, cached prefixes, a priced model.
const agentEvents = (() => {
  const ev = []
  let seq = 0
  const add = (type, data) => ev.push({ session: 's1', seq: ++seq, time: iso(30 - seq / 2), type, data })
  const use = (input, cached, output, extra = {}) =>
    add('usage', { model: 'claude-sonnet-4-5', input_tokens: input, cache_read_tokens: cached, output_tokens: output, context_window: 200000, duration_ms: 900 + output * 9, local_input_tokens: Math.round(input * 0.97), local_output_tokens: output, cost_usd: (input - cached) * 3e-6 + cached * 3e-7 + output * 15e-6, ...extra })
  const turn = (text, steps) => {
    add('user', { text })
    steps.forEach(([input, cached, output], i) => {
      const last = i === steps.length - 1
      add('assistant', last ? { text: 'Done.', model: 'claude-sonnet-4-5' } : { text: '', model: 'claude-sonnet-4-5', tool_calls: [{ id: `c${seq}`, name: 'read_file', arguments: '{"path":"main.go"}' }] })
      use(input, cached, output)
      add('model_call', { model: 'claude-sonnet-4-5', target: 'anthropic/claude-sonnet-4-5', attempts: [{ target: 'anthropic', key: 0, events: 9 }], outcome: 'ok' })
      if (!last) add('tool_result', { call_id: `c${seq - 3}`, name: 'read_file', text: 'package main', duration_ms: 4 })
    })
    add('turn_end', { reason: 'done', steps: steps.length })
  }
  turn('Find why the tests are flaky', [[6200, 0, 180], [9400, 6100, 240], [14800, 9300, 310], [21500, 14700, 420], [24100, 21400, 650]])
  turn('Fix it and run the tests', [[26800, 23900, 380], [31200, 26700, 520], [38900, 31100, 290], [41200, 38800, 610]])
  turn('Summarize the change', [[44100, 41100, 720]])
  return ev
})()

const status = {
  provider: 'ollama', base_url: 'http://127.0.0.1:11434', reachable: true, default_model: 'qwen3:8b',
  models: [{ name: 'qwen3:8b', provider: 'ollama', parameter_size: '8.2B', context_window: 32768 }, { name: 'gemma3:4b', provider: 'ollama', parameter_size: '4.3B' }],
}

async function scripted(page, { streaming, tokens = false }) {
  await page.route('**/api/call/**', async (route) => {
    const method = route.request().url().split('/api/call/')[1]
    const result = {
      'SessionService.List': sessions,
      'SessionService.Transcript': tokens ? agentEvents : streaming ? events.slice(0, 4) : events,
      'SettingsService.Get': { providers: [{ name: 'ollama', type: 'ollama' }], models: { main: 'qwen3:8b' }, thinking: 'off', api_keys: { ollama: 0 }, config_path: '/home/you/.config/tofu/config.json', keys_store: 'keyring' },
      'ModelService.Status': streaming ? { ...status, reachable: false, models: [], error: { kind: 'unreachable', message: 'Ollama is not reachable at http://127.0.0.1:11434 (connection refused).', hint: 'Start it with `ollama serve`, or set OLLAMA_HOST / the base URL in Settings.' } } : status,
      'ChatService.Streaming': streaming ? ['s1'] : [],
      'BridgeService.List': [
        { name: 'home', platform: 'matrix', on: true, has_token: true, allowed: ['@me:example.org'], status: { connected: true, running: 1 } },
        { name: 'phone', platform: 'telegram', on: true, has_token: true, allowed: ['123456789'], status: { connected: false, running: 0, error: 'telegram: getUpdates: dial tcp: lookup api.telegram.org: no such host', retry_at: new Date(Date.now() + 90_000).toISOString() } },
      ],
    }[method]
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ result: result ?? null }) })
  })
  await page.route('**/api/events**', async (route) => {
    const msgs = streaming
      ? [{ topic: 'session:s1', data: { kind: 'delta', text: 'On long documents attention costs O(n²) in the sequence length, so' } }]
      : []
    await route.fulfill({ status: 200, contentType: 'text/event-stream', body: msgs.map((m) => `data: ${JSON.stringify(m)}\n\n`).join('') + 'retry: 600000\n\n' })
  })
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args })
try {
  for (const [name, scheme, setup] of [
    ['no-backend', 'light', null],
    ['chat-light', 'light', (p) => scripted(p, { streaming: false })],
    ['chat-dark', 'dark', (p) => scripted(p, { streaming: false })],
    ['streaming-unreachable', 'light', (p) => scripted(p, { streaming: true })],
    ['tokens-light', 'light', (p) => scripted(p, { streaming: false, tokens: true })],
    ['tokens-dark', 'dark', (p) => scripted(p, { streaming: false, tokens: true })],
    ['bridges-settings', 'light', (p) => scripted(p, { streaming: false })],
  ]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 820 }, colorScheme: scheme })
    const errors = []
    page.on('pageerror', (e) => errors.push(String(e)))
    if (setup) await setup(page)
    await page.goto(url)
    await page.waitForTimeout(800)
    // The token panel, opened from the context meter.
    if (name.startsWith('tokens')) await page.getByTestId('context-meter').click()
    // Settings, at the chat bridges' section.
    if (name === 'bridges-settings') {
      await page.getByTestId('settings-open').click()
      await page.locator('#s-bridges').scrollIntoViewIfNeeded()
      await page.waitForTimeout(300)
    }
    await page.screenshot({ path: `${out}/${name}.png` })
    console.log(name, 'title:', await page.title(), errors.length ? `page errors: ${errors.join('; ')}` : 'no page errors')
    await page.close()
  }
} finally {
  await browser.close()
}
