// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'

describe('startup marks', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.resetModules()
  })

  it('sends one event to the window once the shell and the data have been painted', async () => {
    vi.stubGlobal('requestAnimationFrame', (fn: FrameRequestCallback) => {
      fn(0)
      return 0
    })
    const emit = vi.fn()
    ;(window as unknown as { runtime: unknown }).runtime = { EventsEmit: emit }
    const { modulesEvaluated, shellMounted, dataLoaded, dataArrived, modelsArrived, startupMarks } = await import('./startup')
    modulesEvaluated()
    shellMounted()
    dataArrived()
    modelsArrived()
    await vi.waitFor(() => expect(startupMarks().shell).toBeGreaterThan(0))
    expect(emit).not.toHaveBeenCalled()
    dataLoaded()
    expect(emit).not.toHaveBeenCalled() // the frame is not painted yet
    await vi.waitFor(() => expect(emit).toHaveBeenCalledTimes(1))
    const [topic, marks] = emit.mock.calls[0]
    expect(topic).toBe('tofu:startup')
    expect(marks.origin).toBeGreaterThan(0)
    expect(marks.imported).toBeGreaterThanOrEqual(marks.script)
    expect(marks.mounted).toBeGreaterThanOrEqual(marks.imported)
    expect(marks.shell).toBeGreaterThanOrEqual(marks.mounted)
    expect(marks.ready).toBeGreaterThanOrEqual(marks.shell)
    expect(marks.data).toBeGreaterThan(0)
    expect(marks.models).toBeGreaterThanOrEqual(marks.data)
    delete (window as unknown as { runtime?: unknown }).runtime
  })
})
