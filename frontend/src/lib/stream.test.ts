// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest'
import { DeltaBuffer, type FrameScheduler } from './stream'

function fakeFrames() {
  const queue = new Map<number, () => void>()
  let next = 1
  const frames: FrameScheduler = {
    request: (cb) => {
      queue.set(next, cb)
      return next++
    },
    cancel: (id) => void queue.delete(id),
  }
  const runFrame = () => {
    const cbs = [...queue.values()]
    queue.clear()
    for (const cb of cbs) cb()
  }
  return { frames, runFrame, pending: () => queue.size }
}

describe('DeltaBuffer', () => {
  it('flushes once per animation frame however many deltas arrived', () => {
    const { frames, runFrame, pending } = fakeFrames()
    const flush = vi.fn()
    const buf = new DeltaBuffer(flush, frames)
    for (let i = 0; i < 25; i++) buf.push({ text: `${i},` })
    buf.push({ reasoning: 'r' })
    expect(flush).not.toHaveBeenCalled()
    expect(pending()).toBe(1)
    runFrame()
    expect(flush).toHaveBeenCalledTimes(1)
    expect(flush.mock.calls[0][0].text).toBe(Array.from({ length: 25 }, (_, i) => `${i},`).join(''))
    expect(flush.mock.calls[0][0].reasoning).toBe('r')

    runFrame() // nothing new: no empty flush
    expect(flush).toHaveBeenCalledTimes(1)

    buf.push({ text: 'a' })
    buf.push({ text: 'b' })
    runFrame()
    expect(flush).toHaveBeenCalledTimes(2)
    expect(flush.mock.calls[1][0]).toEqual({ text: 'ab', reasoning: '' })
  })

  it('with minInterval, waits for a frame far enough from the last delivery', () => {
    const queue = new Map<number, (t?: number) => void>()
    let next = 1
    const frames: FrameScheduler = {
      request: (cb) => (queue.set(next, cb), next++),
      cancel: (id) => void queue.delete(id),
    }
    const runFrame = (t: number) => {
      const cbs = [...queue.values()]
      queue.clear()
      for (const cb of cbs) cb(t)
    }
    const flush = vi.fn()
    const buf = new DeltaBuffer(flush, frames, 50)
    buf.push({ text: 'a' })
    runFrame(1000)
    expect(flush).toHaveBeenCalledTimes(1) // the first delta shows at once
    buf.push({ text: 'b' })
    runFrame(1016)
    runFrame(1033)
    expect(flush).toHaveBeenCalledTimes(1)
    expect(buf.pending).toBe(true)
    buf.push({ text: 'c' })
    runFrame(1050)
    expect(flush).toHaveBeenCalledTimes(2)
    expect(flush.mock.calls[1][0]).toEqual({ text: 'bc', reasoning: '' })
    runFrame(1066) // nothing pending: no frame asked for, no flush
    expect(queue.size).toBe(0)
    expect(flush).toHaveBeenCalledTimes(2)
    // flush() still delivers at once (before an event that depends on it).
    buf.push({ text: 'd' })
    buf.flush()
    expect(flush).toHaveBeenCalledTimes(3)
    expect(queue.size).toBe(0)
  })

  it('uses requestAnimationFrame by default', () => {
    const raf = vi.spyOn(globalThis, 'requestAnimationFrame').mockImplementation(() => 7)
    const flush = vi.fn()
    const buf = new DeltaBuffer(flush)
    buf.push({ text: 'x' })
    buf.push({ text: 'y' })
    expect(raf).toHaveBeenCalledTimes(1)
    raf.mockRestore()
  })

  it('discard drops pending text and cancels the frame', () => {
    const { frames, runFrame, pending } = fakeFrames()
    const flush = vi.fn()
    const buf = new DeltaBuffer(flush, frames)
    buf.push({ text: 'stale' })
    buf.discard()
    expect(pending()).toBe(0)
    runFrame()
    expect(flush).not.toHaveBeenCalled()
  })

  it('ignores empty deltas', () => {
    const { frames, pending } = fakeFrames()
    const buf = new DeltaBuffer(vi.fn(), frames)
    buf.push({})
    expect(pending()).toBe(0)
  })
})
