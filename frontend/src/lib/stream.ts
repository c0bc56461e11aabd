// Deltas arrive every ~40 ms; rendering happens at most once per animation frame, whatever the
// number of deltas that arrived in between.

export type Delta = { text: string; reasoning: string }

export type FrameScheduler = {
  request: (cb: () => void) => number
  cancel: (id: number) => void
}

const browserFrames: FrameScheduler = {
  request: (cb) => requestAnimationFrame(() => cb()),
  cancel: (id) => cancelAnimationFrame(id),
}

export class DeltaBuffer {
  private text = ''
  private reasoning = ''
  private frame: number | null = null

  constructor(
    private flushTo: (d: Delta) => void,
    private frames: FrameScheduler = browserFrames,
  ) {}

  push(d: { text?: string; reasoning?: string }) {
    this.text += d.text ?? ''
    this.reasoning += d.reasoning ?? ''
    if (this.frame === null && (this.text || this.reasoning)) {
      this.frame = this.frames.request(() => {
        this.frame = null
        this.flush()
      })
    }
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
