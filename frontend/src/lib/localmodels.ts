// Settings' "Local models": the words and figures of the model list and the pull progress bar
// (LocalModelService; the pull's steps arrive on the "models:pull" topic).
import type { LocalModel, PullProgress } from './protocol.gen'

/** Sizes in decimal units, as Ollama and its registry state them. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1000) return `${Math.max(0, Math.round(n || 0))} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = n / 1000
  let i = 0
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000
    i++
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`
}

/** "under a second", "3 s", "4 min 05 s", "1 h 20 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 1) return 'under a second'
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

/** The bar's fill, 0–100 (0 until the size is known). */
export function percent(p: PullProgress): number {
  if (!p.total) return p.state === 'done' ? 100 : 0
  return Math.min(100, Math.floor((p.completed / p.total) * 100))
}

/** The line under the bar: bytes, speed and time left, or what Ollama is doing. */
export function progressLine(p: PullProgress): string {
  if (p.state === 'done') return `Pulled ${formatBytes(p.total || p.completed)}.`
  if (p.state === 'cancelled') return `Cancelled at ${formatBytes(p.completed)}${p.total ? ` of ${formatBytes(p.total)}` : ''}: pull again to continue from there.`
  if (p.state === 'failed') return p.error?.message ?? 'The pull failed.'
  if (!p.total) return statusWords(p.status)
  const parts = [`${formatBytes(p.completed)} of ${formatBytes(p.total)}`]
  if (p.bytes_per_second) parts.push(`${formatBytes(p.bytes_per_second)}/s`)
  if (p.seconds_left) parts.push(`${formatDuration(p.seconds_left)} left`)
  else if (p.completed < p.total && !p.bytes_per_second) parts.push(statusWords(p.status))
  if (p.resumed && p.resumed < p.total) parts.push(`${formatBytes(p.resumed)} were already here`)
  return parts.join(' · ')
}

/** Ollama's status words, said for people. */
export function statusWords(status: string): string {
  if (status === 'pulling manifest') return 'Reading the manifest…'
  if (status.startsWith('pulling ')) return 'Starting the download…'
  if (status === 'verifying sha256 digest') return 'Checking the download…'
  if (status === 'writing manifest') return 'Installing…'
  return status || 'Starting…'
}

/** The facts a model row shows after its name: size, parameters, quantisation, context. */
export function modelFacts(m: LocalModel): string[] {
  return [
    formatBytes(m.size_bytes),
    m.parameter_size ? `${m.parameter_size} parameters` : '',
    m.quantization ?? '',
    m.context_length ? `${formatContext(m.context_length)} context` : '',
  ].filter(Boolean)
}

/** 131072 → "128k", 2048 → "2k", 1000 → "1000". */
export function formatContext(n: number): string {
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}k` : String(n)
}

/** What the loaded badge says: the memory the model holds, and how much is on the GPU. */
export function loadedLine(m: LocalModel): string {
  const l = m.loaded
  if (!l) return ''
  const gpu = l.vram_bytes > 0 ? (l.vram_bytes >= l.memory_bytes ? ', all on the GPU' : `, ${formatBytes(l.vram_bytes)} on the GPU`) : ''
  return `Loaded: ${formatBytes(l.memory_bytes)} of memory${gpu}`
}
