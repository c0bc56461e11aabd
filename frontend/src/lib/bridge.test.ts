// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError, FetchEventStream, HttpTransport, WailsTransport, api, isQuitKey, on, quitWindow, setTransport, takeToken } from './bridge'

function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
}

class FakeSource {
  static last: FakeSource | null = null
  onmessage: ((e: MessageEvent) => void) | null = null
  onopen: (() => void) | null = null
  constructor(
    public url: string,
    public headers: Record<string, string>,
  ) {
    FakeSource.last = this
  }
  close() {}
  emit(topic: string, data: unknown) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ topic, data }) }))
  }
}

afterEach(() => {
  setTransport(null)
  sessionStorage.clear()
  history.replaceState(null, '', '/')
})

describe('HTTP transport', () => {
  it('POSTs a JSON array of args with the token header and returns result', async () => {
    const fetchFn = vi.fn(async () => jsonResponse({ result: null }))
    setTransport(new HttpTransport('T0K', fetchFn as unknown as typeof fetch))
    await api.chat.send('s1', 'hello', 'qwen3')
    expect(fetchFn).toHaveBeenCalledTimes(1)
    const [url, init] = fetchFn.mock.calls[0] as unknown as [string, RequestInit]
    expect(url).toBe('/api/call/ChatService.Send')
    expect(init.method).toBe('POST')
    expect((init.headers as Record<string, string>)['X-Tofu-Token']).toBe('T0K')
    expect(JSON.parse(init.body as string)).toEqual(['s1', 'hello', 'qwen3'])
  })

  it('sends [] for methods without arguments and unwraps result', async () => {
    const sessions = [{ id: 'a', title: 't', created: '', updated: '', events: 0 }]
    const fetchFn = vi.fn(async () => jsonResponse({ result: sessions }))
    setTransport(new HttpTransport('x', fetchFn as unknown as typeof fetch))
    expect(await api.sessions.list()).toEqual(sessions)
    const [url, init] = fetchFn.mock.calls[0] as unknown as [string, RequestInit]
    expect(url).toBe('/api/call/SessionService.List')
    expect(init.body).toBe('[]')
  })

  it('turns {"error"} answers into ApiError with the status', async () => {
    const fetchFn = vi.fn(async () => jsonResponse({ error: 'unknown session' }, 404))
    setTransport(new HttpTransport('x', fetchFn as unknown as typeof fetch))
    const err = await api.sessions.rename('nope', 'x').catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err.message).toBe('unknown session')
    expect(err.status).toBe(404)
  })

  it('reports an unreachable backend with status 0', async () => {
    const fetchFn = vi.fn(async () => {
      throw new TypeError('Failed to fetch')
    })
    setTransport(new HttpTransport('x', fetchFn as unknown as typeof fetch))
    const err = await api.models.status().catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err.status).toBe(0)
  })

  it('dispatches events from one shared event stream by topic', () => {
    const t = new HttpTransport('T0K', vi.fn() as unknown as typeof fetch, (url, headers) => new FakeSource(url, headers))
    setTransport(t)
    const a = vi.fn()
    const b = vi.fn()
    const offA = on('session:1', a)
    on('sessions', b)
    const src = FakeSource.last!
    // The token rides in a header, never in the URL (nor in a cookie).
    expect(src.url).toBe('/api/events')
    expect(src.headers).toEqual({ 'X-Tofu-Token': 'T0K' })
    src.emit('session:1', { kind: 'delta', text: 'x' })
    src.emit('sessions', [])
    src.emit('session:2', { kind: 'delta', text: 'y' })
    expect(a).toHaveBeenCalledWith({ kind: 'delta', text: 'x' })
    expect(a).toHaveBeenCalledTimes(1)
    expect(b).toHaveBeenCalledTimes(1)
    offA()
    src.emit('session:1', { kind: 'delta', text: 'z' })
    expect(a).toHaveBeenCalledTimes(1)
    expect(FakeSource.last).toBe(src) // still one source
  })
})

describe('FetchEventStream', () => {
  it('reads Server-Sent Events over fetch with the header, across chunk boundaries', async () => {
    const chunks = ['retry: 5\n: connected\n\n', 'data: {"topic":"a",', '"data":1}\n\ndata: {"topic":"b","data":2}\n', '\n']
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch))
        c.close()
      },
    })
    const calls: RequestInit[] = []
    const fetchFn = vi.fn(async (_url: string, init: RequestInit) => {
      calls.push(init)
      return calls.length === 1 ? new Response(body, { status: 200 }) : new Promise<Response>(() => {})
    })
    const got: string[] = []
    let opened = 0
    const src = new FetchEventStream('/api/events', { 'X-Tofu-Token': 'T0K' }, fetchFn as unknown as typeof fetch)
    src.onopen = () => opened++
    src.onmessage = (m) => got.push(m.data)
    await vi.waitFor(() => expect(calls.length).toBe(2)) // the stream ended: it reconnects
    src.close()
    expect(got).toEqual(['{"topic":"a","data":1}', '{"topic":"b","data":2}'])
    expect(opened).toBe(1)
    expect((calls[0]!.headers as Record<string, string>)['X-Tofu-Token']).toBe('T0K')
  })
})

describe('takeToken', () => {
  it('reads the token from the fragment tofu serve prints, and removes it', () => {
    history.replaceState(null, '', '/?x=1#token=f7a9')
    expect(takeToken()).toBe('f7a9')
    expect(location.search).toBe('?x=1')
    expect(location.hash).toBe('')
    expect(sessionStorage.getItem('tofu_token')).toBe('f7a9')
  })

  it('reads the token from the URL, stores it and removes it from the address bar', () => {
    history.replaceState(null, '', '/?token=abc123&x=1#frag')
    expect(takeToken()).toBe('abc123')
    expect(location.search).toBe('?x=1')
    expect(location.hash).toBe('#frag')
    expect(sessionStorage.getItem('tofu_token')).toBe('abc123')
    // a reload has no token in the URL any more
    expect(takeToken()).toBe('abc123')
  })
})

describe('Wails transport', () => {
  it('calls window.go.app.<Service>.<Method> and shares one runtime listener per topic', async () => {
    const send = vi.fn(async () => undefined)
    const handlers = new Map<string, (d: unknown) => void>()
    const eventsOn = vi.fn((topic: string, cb: (d: unknown) => void) => {
      handlers.set(topic, cb)
      return () => handlers.delete(topic)
    })
    setTransport(new WailsTransport({ go: { app: { ChatService: { Send: send } } }, runtime: { EventsOn: eventsOn, EventsOff: vi.fn() } }))
    await api.chat.send('s', 'hi', 'm')
    expect(send).toHaveBeenCalledWith('s', 'hi', 'm')

    const a = vi.fn()
    const b = vi.fn()
    const offA = on('models', a)
    const offB = on('models', b)
    expect(eventsOn).toHaveBeenCalledTimes(1)
    handlers.get('models')!({ reachable: true })
    expect(a).toHaveBeenCalledTimes(1)
    expect(b).toHaveBeenCalledTimes(1)
    offA()
    expect(handlers.has('models')).toBe(true)
    offB()
    expect(handlers.has('models')).toBe(false)
  })
})

describe('paper upload over HTTP', () => {
  it('sends the PDF as the raw body with the token and password headers', async () => {
    const calls: { url: string; init: RequestInit }[] = []
    const fetchFn = (async (url: string, init: RequestInit) => {
      calls.push({ url, init })
      return new Response(JSON.stringify({ result: { id: 'p1', title: 'T' } }), { status: 200 })
    }) as unknown as typeof fetch
    const tr = new HttpTransport('tok', fetchFn, () => ({ onmessage: null, onopen: null, close() {} }))
    const blob = new Blob(['%PDF-1.7 …'], { type: 'application/pdf' })
    const info = await tr.uploadPaper(blob, 'a b.pdf', 'pw')
    expect(info.id).toBe('p1')
    expect(calls[0]!.url).toBe('/api/paper/import?name=a%20b.pdf')
    const h = calls[0]!.init.headers as Record<string, string>
    expect(h['X-Tofu-Token']).toBe('tok')
    expect(h['X-Tofu-Password']).toBe('pw')
    expect(calls[0]!.init.body).toBe(blob)
  })
  it('turns an error answer into an ApiError with the message', async () => {
    const fetchFn = (async () => new Response(JSON.stringify({ error: 'the PDF is password-protected', kind: 'encrypted' }), { status: 400 })) as unknown as typeof fetch
    const tr = new HttpTransport('', fetchFn, () => ({ onmessage: null, onopen: null, close() {} }))
    await expect(tr.uploadPaper(new Blob(['x']), 'x.pdf', '')).rejects.toThrow('password-protected')
  })
})

describe('quitting the window (regression, issue 36: Ctrl+Q did nothing)', () => {
  it('Ctrl+Q and ⌘Q quit through Wails; a browser keeps its own Ctrl+Q', () => {
    const key = (k: string, mods: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods })
    expect(isQuitKey(key('q', { ctrlKey: true }))).toBe(true)
    expect(isQuitKey(key('Q', { metaKey: true }))).toBe(true)
    expect(isQuitKey(key('q', { ctrlKey: true, shiftKey: true }))).toBe(false)
    expect(isQuitKey(key('q'))).toBe(false)
    const Quit = vi.fn()
    expect(quitWindow({ runtime: { Quit } })).toBe(true)
    expect(Quit).toHaveBeenCalledOnce()
    expect(quitWindow({})).toBe(false)
  })
})
