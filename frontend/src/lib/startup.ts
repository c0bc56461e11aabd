// The window's start-up, measured from inside (docs/PERFORMANCE.md, "The window's first
// paint"): the page marks when its bundle ran, its shell's first frame and the first frame with
// the conversations and models the shell waits for, and sends them to Go, which places them on
// the process's clock (app/window/startup.go; printed when TOFU_STARTUP_TIMES is set).

type Runtime = { EventsEmit?: (topic: string, ...data: unknown[]) => void }

const marks = {
  origin: performance.timeOrigin,
  html: 0, // index.html received
  script: performance.now(),
  imported: 0, // the modules evaluated (main's body began)
  mounted: 0, // the shell mounted (its DOM built, before its frame)
  shell: 0,
  data: 0,
  models: 0,
  ready: 0,
}

/** fetched is when a resource's last byte arrived (ms after the origin), 0 when unknown.
 * WebKitGTK times the page itself but no resource of a custom scheme (the bundle's request is
 * timed by Go: app/window/startup.go). */
function fetched(entry: PerformanceEntry | undefined): number {
  return (entry as PerformanceResourceTiming | undefined)?.responseEnd ?? 0
}

/** afterPaint runs fn once the next frame has been painted: a task queued from the frame's
 * animation callback runs after that frame's style, layout and paint. (A second animation frame,
 * the mark until 2026-12, waited up to a whole frame interval more, idle, before each mark.) */
function afterPaint(fn: () => void) {
  requestAnimationFrame(() => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      channel.port1.close()
      fn()
    }
    channel.port2.postMessage(null)
  })
}

function send() {
  if (!marks.shell || !marks.ready) return
  marks.html = fetched(performance.getEntriesByType('navigation')[0])
  const rt = (window as unknown as { runtime?: Runtime }).runtime
  rt?.EventsEmit?.('tofu:startup', { ...marks })
}

/** shellMounted marks the shell's first frame (call it right after mounting). */
export function shellMounted() {
  marks.mounted = performance.now()
  afterPaint(() => {
    marks.shell = performance.now()
    send()
  })
}

/** modulesEvaluated marks main's body beginning: every module it imports has run. */
export function modulesEvaluated() {
  marks.imported = performance.now()
}

/** dataLoaded marks the first frame with the start-up data (call it when app.start resolves). */
export function dataLoaded() {
  afterPaint(() => {
    marks.ready = performance.now()
    send()
  })
}

/** dataArrived marks the arrival of the conversations, settings and folders (the first time). */
export function dataArrived() {
  marks.data ||= performance.now()
}

/** modelsArrived marks the arrival of the model status (the first time). */
export function modelsArrived() {
  marks.models ||= performance.now()
}

/** startupMarks are the marks so far (for tests). */
export function startupMarks() {
  return { ...marks }
}
