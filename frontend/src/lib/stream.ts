// Deltas arrive every ~10-40 ms; rendering happens at most once per animation frame, whatever
// the number of deltas that arrived in between, and (with minInterval) not more often than
// that: every page update costs style, layout, paint and commit, whatever its size.

export type Delta = { text: string; reasoning: string }

export type FrameScheduler = {
  /** Calls cb on the next frame, with the frame's time (ms) when the scheduler knows it. */
  request: (cb: (time?: number) => void) => number
  cancel: (id: number) => void
}

const browserFrames: FrameScheduler = {
  request: (cb) => requestAnimationFrame((t) => cb(t)),
  cancel: (id) => cancelAnimationFrame(id),
}

export class DeltaBuffer {
  private text = ''
  private reasoning = ''
  private frame: number | null = null
  private lastFlush = -Infinity

  /**
   * minInterval (ms): a frame that comes sooner than this after the last delivery waits for a
   * later frame. A few ms of slack keeps e.g. 33 ms on every second frame at 60 Hz.
   */
  constructor(
    private flushTo: (d: Delta) => void,
    private frames: FrameScheduler = browserFrames,
    private minInterval = 0,
  ) {}

  push(d: { text?: string; reasoning?: string }) {
    this.text += d.text ?? ''
    this.reasoning += d.reasoning ?? ''
    if (this.frame === null && (this.text || this.reasoning)) this.frame = this.frames.request(this.onFrame)
  }

  private onFrame = (time?: number) => {
    this.frame = null
    if (time !== undefined && time - this.lastFlush < this.minInterval - 4) {
      this.frame = this.frames.request(this.onFrame)
      return
    }
    if (time !== undefined) this.lastFlush = time
    this.flush()
  }

  /** Delivers what is pending now (used before an event that depends on it). */
  flush() {
    if (this.frame !== null) {
      this.frames.cancel(this.frame)
      this.frame = null
    }
    if (!this.text && !this.reasoning) return
    const d = { text: this.text, reasoning: this.reasoning }
    this.text = ''
    this.reasoning = ''
    this.flushTo(d)
  }

  /** Drops what is pending (the final event carries the whole text anyway). */
  discard() {
    if (this.frame !== null) this.frames.cancel(this.frame)
    this.frame = null
    this.text = ''
    this.reasoning = ''
  }

  get pending(): boolean {
    return this.frame !== null
  }
}
