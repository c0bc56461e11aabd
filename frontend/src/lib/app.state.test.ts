// @vitest-environment jsdom
// The application state's actions against a fake transport: what stays in the banner and in
// the list after failures and successes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { app } from './app.svelte'
import { setTransport, type Transport } from './bridge'
import type { Event, SessionInfo } from './types'

type Handler = (...args: unknown[]) => unknown

class FakeTransport implements Transport {
  readonly kind = 'wails' as const
  calls: string[] = []
  argsOf: Record<string, unknown[]> = {}
  /** The arguments of the last call of a method. */
  args(name: string): unknown[] {
    return this.argsOf[name] ?? []
  }
  constructor(private handlers: Record<string, Handler>) {}
  async call(service: string, method: string, args: unknown[]): Promise<unknown> {
    const name = `${service}.${method}`
    this.calls.push(name)
    this.argsOf[name] = args
    const h = this.handlers[name]
    if (!h) return null
    return await h(...args)
  }
  listeners = new Map<string, (data: unknown) => void>()
  subscribe(topic: string, cb: (data: unknown) => void): () => void {
    this.listeners.set(topic, cb)
    return () => this.listeners.delete(topic)
  }
  /** Go pushing an event on topic. */
  emit(topic: string, data: unknown) {
    this.listeners.get(topic)?.(data)
  }
}

const session = (id: string, over: Partial<SessionInfo> = {}): SessionInfo => ({ id, title: 'New conversation', created: '', updated: '', events: 0, ...over })

let sessions: SessionInfo[]
let fake: FakeTransport
function use(handlers: Record<string, Handler>) {
  fake = new FakeTransport({
    'SessionService.List': () => sessions,
    'SettingsService.Get': () => ({ providers: [], models: {} }),
    'SessionService.Transcript': () => [],
    'ChatService.Streaming': () => [],
    'ModelService.Status': () => ({ provider: 'ollama', base_url: '', reachable: true, models: [{ name: 'm', provider: 'ollama' }], default_model: 'm' }),
    ...handlers,
  })
  setTransport(fake)
}

beforeEach(() => {
  sessions = [session('a', { title: 'Old', events: 2 })]
  app.notice = null
})
afterEach(() => setTransport(null))

describe('AppState', () => {
  it('start asks for the model status with the first calls, not after them (first paint)', async () => {
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    use({ 'SessionService.List': async () => { await held; return sessions } })
    const started = app.start()
    await Promise.resolve()
    expect(fake.calls).toContain('ModelService.Status')
    expect(fake.calls).toContain('SessionService.List')
    release()
    await started
    expect(app.status?.default_model).toBe('m')
    expect(app.currentId).toBe('a')
  })

  it('a conversation created while the first list is on its way stays listed', async () => {
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    sessions = []
    use({
      'SessionService.List': async () => { await held; return [] },
      'SessionService.Create': () => session('n'),
    })
    app.sessions = []
    const started = app.start()
    await app.newSession()
    release()
    await started
    expect(app.sessions.map((s) => s.id)).toContain('n')
    expect(app.currentId).toBe('n')
  })

  it('a model status that fails while the backend is down is not reported twice', async () => {
    use({
      'SessionService.List': () => { throw new Error('no backend') },
      'ModelService.Status': () => { throw new Error('no backend') },
    })
    await app.start()
    expect(app.connection).toBe('down')
    expect(app.notice).toBeNull()
  })

  it('a later success clears the stale banner of the same action (workspace picker)', async () => {
    let fails = true
    use({
      'SessionService.ChooseWorkspace': () => '/w',
      'SessionService.SetWorkspace': () => {
        if (fails) throw new Error('/w is not a directory')
      },
    })
    await app.start()
    await app.chooseWorkspace()
    expect(app.notice?.message).toContain('/w is not a directory')
    fails = false
    await app.chooseWorkspace()
    expect(app.notice).toBeNull()
  })

  it('a success of another action leaves the banner', async () => {
    use({ 'SessionService.Rename': () => { throw new Error('disk full') } })
    await app.start()
    await app.rename('a', 'x')
    expect(app.notice?.message).toContain('disk full')
    await app.refreshStatus()
    expect(app.notice?.message).toContain('disk full')
  })

  it('a message Go recorded with its error is not put back in the composer', async () => {
    const log: Event[] = []
    use({
      'ChatService.Send': (_id, text) => {
        log.push({ session: 'a', seq: 1, time: '', type: 'user', data: { text } } as Event)
        log.push({ session: 'a', seq: 2, time: '', type: 'error', data: { kind: 'model_not_found', message: 'no model is selected', retryable: true } } as Event)
        throw new Error('no model is selected')
      },
      'SessionService.Transcript': () => log,
    })
    await app.start()
    expect(await app.send('hello')).toBe(true)
    expect(app.notice).toBeNull()
    expect(app.transcript.events.map((e) => e.type)).toEqual(['user', 'error'])
  })

  it('a message of attachments alone is sent; an empty one without any is not', async () => {
    const sent: unknown[][] = []
    use({ 'ChatService.SendAttached': (...args) => void sent.push(args) })
    await app.start()
    const shot = { kind: 'image', uri: 'shot.png', name: 'shot.png', mime_type: 'image/png', size: 3, blob: 'b1' } as never
    expect(await app.send('  ', [shot])).toBe(true)
    expect(sent.length).toBe(1)
    expect(sent[0]![1]).toBe('')
    expect(await app.send('  ')).toBe(false)
    expect(fake.calls.filter((c) => c === 'ChatService.Send')).toEqual([])
  })

  it('leaving an untouched New conversation discards it; New on one reuses it', async () => {
    use({ 'SessionService.Create': () => session('stub') })
    await app.start()
    await app.newSession()
    expect(app.currentId).toBe('stub')
    await app.newSession()
    expect(fake.calls.filter((c) => c === 'SessionService.Create')).toHaveLength(1)
    await app.select('a')
    expect(fake.calls).toContain('SessionService.Discard')
    expect(app.sessions.map((s) => s.id)).toEqual(['a'])
  })

  it('a model status pushed after Stop demo does not bring the demo model back from its conversation', async () => {
    // The picker showed "No models" after Stop demo, then tofu-test:latest again: the next
    // status pushed by Go refilled the empty picker with the open conversation's model, which
    // no provider lists any more.
    const demo = { provider: 'ollama', base_url: '', reachable: true, demo: true, demo_workspace: '', models: [{ name: 'tofu-test:latest', provider: 'demo' }], default_model: 'tofu-test:latest' }
    const down = { provider: 'ollama', base_url: '', reachable: false, models: [], default_model: '' }
    sessions = [session('a', { title: 'What can Tofu do?', events: 4, model: 'tofu-test:latest' })]
    use({ 'ModelService.Status': () => demo, 'ModelService.StopDemo': () => down })
    app.model = '' // the state is one for the file: a fresh window's
    await app.start()
    expect(app.model).toBe('tofu-test:latest')
    await app.stopDemo()
    expect(app.model).toBe('')
    fake.emit('models', down)
    expect(app.model).toBe('')
  })

  it('New conversation asked again before Go answers opens one conversation, and what is typed goes to it', async () => {
    // A second click, a message sent or a workspace set while Go creates the conversation: two
    // were created, and opening the second discarded the first under the message on its way.
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let made = 0
    use({
      'SessionService.Create': async () => { await held; return session(`new${++made}`) },
      'SessionService.SetWorkspace': () => null,
      'ChatService.Send': () => null,
    })
    await app.start()
    expect(app.currentId).toBe('a')
    const clicks = [app.newSession(), app.newSession()]
    const sent = app.send('hello')
    const workspace = app.setWorkspace('/tmp/ws')
    release()
    const [first, second] = await Promise.all(clicks)
    expect(await sent).toBe(true)
    expect(await workspace).toBeNull()
    expect(first?.id).toBe('new1')
    expect(second?.id).toBe('new1')
    expect(fake.calls.filter((c) => c === 'SessionService.Create')).toHaveLength(1)
    expect(fake.calls).not.toContain('SessionService.Discard')
    expect(app.currentId).toBe('new1')
    expect(fake.args('ChatService.Send')[0]).toBe('new1') // not the conversation open before
    expect(fake.args('SessionService.SetWorkspace')[0]).toBe('new1')
  })

  it('New conversation gives the composer the focus, unless the user moved it while Go answered', async () => {
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let made = 0
    use({ 'SessionService.Create': async () => { await held; return session(`focus${++made}`) } })
    await app.start()
    const tick = app.focusTick
    const pending = app.newSession()
    const chip = document.createElement('input') // the workspace chip, opened meanwhile
    document.body.append(chip)
    chip.focus()
    release()
    await pending
    expect(app.focusTick).toBe(tick)
    chip.remove()
    await app.select('a')
    await app.newSession()
    expect(app.focusTick).toBe(tick + 1)
  })
})
