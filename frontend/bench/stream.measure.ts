// How long the transcript's streaming pipeline takes for one reply: a ~4,000-token answer with
// code, a list, a table and math (reply.ts), delivered in 1,000 deltas, each followed by the
// update Message.svelte makes (IncrementalMarkdown.update with the app's sanitizing renderers,
// KaTeX and highlight.js loaded, as once a formula and a code block have been shown), then the
// final update. It prints JSON and writes it to $TOFU_BENCH_OUT when set (backend/bench/cmd/bench
// reads it). It measures, never judges: the frame budget is compared in the table, not asserted
// here.
import { writeFileSync } from 'node:fs'
import { flushSync } from 'svelte'
import { it } from 'vitest'
import { loadHighlight } from '../src/lib/highlight'
import { IncrementalMarkdown, clearBlockCache } from '../src/lib/markdown'
import { loadMath } from '../src/lib/math'
import { reply } from './reply'

const DELTAS = 1000
const RUNS = 3

/** Cuts text into `count` deltas of nearly equal size (the model's tokens arrive a few at a time). */
function deltas(text: string, count: number): string[] {
  const out: string[] = []
  for (let i = 0; i < count; i++) out.push(text.slice(Math.round((i * text.length) / count), Math.round(((i + 1) * text.length) / count)))
  return out
}

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

type Run = { totalCpuMs: number; totalWallMs: number; worstDeltaCpuMs: number; worstDeltaWallMs: number; finalMs: number; over16: number }

function streamOnce(parts: string[], text: string): Run {
  clearBlockCache() // a new reply: none of its blocks were rendered before
  const md = new IncrementalMarkdown()
  let acc = ''
  const run: Run = { totalCpuMs: 0, totalWallMs: 0, worstDeltaCpuMs: 0, worstDeltaWallMs: 0, finalMs: 0, over16: 0 }
  for (const p of parts) {
    acc += p
    const c0 = cpuMs()
    const w0 = performance.now()
    md.update(acc, true)
    const w = performance.now() - w0
    const c = cpuMs() - c0
    run.totalCpuMs += c
    run.totalWallMs += w
    run.worstDeltaCpuMs = Math.max(run.worstDeltaCpuMs, c)
    run.worstDeltaWallMs = Math.max(run.worstDeltaWallMs, w)
    if (Math.min(c, w) > 16) run.over16++
  }
  const f0 = performance.now()
  md.update(text, false)
  run.finalMs = performance.now() - f0
  return run
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const round = (x: number) => Math.round(x * 10) / 10

it('streams a 4k-token reply in 1,000 deltas', async () => {
  await Promise.all([loadMath(), loadHighlight()])
  flushSync()
  const text = reply()
  const parts = deltas(text, DELTAS)
  streamOnce(parts, text) // warm-up: the JIT, KaTeX's and highlight.js's first calls
  const runs = Array.from({ length: RUNS }, () => streamOnce(parts, text))
  const result = {
    deltas: parts.length,
    chars: text.length,
    approxTokens: Math.round(text.length / 4),
    runs: RUNS,
    // Medians over the runs; CPU is the process's user + system time (steadier on a loaded machine).
    totalCpuMs: round(median(runs.map((r) => r.totalCpuMs))),
    totalWallMs: round(median(runs.map((r) => r.totalWallMs))),
    worstDeltaCpuMs: round(median(runs.map((r) => r.worstDeltaCpuMs))),
    worstDeltaWallMs: round(median(runs.map((r) => r.worstDeltaWallMs))),
    deltasOver16Ms: median(runs.map((r) => r.over16)),
    finalUpdateMs: round(median(runs.map((r) => r.finalMs))),
    environment: `node ${process.version}, jsdom`,
  }
  const json = JSON.stringify(result)
  console.log(json)
  if (process.env.TOFU_BENCH_OUT) writeFileSync(process.env.TOFU_BENCH_OUT, json + '\n')
})
