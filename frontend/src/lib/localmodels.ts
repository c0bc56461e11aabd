// Settings' "Local models": the words and figures of the model list and the pull progress bar
// (LocalModelService; the pull's steps arrive on the "models:pull" topic).
import { t, type Key } from './i18n/index.svelte'
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
  if (seconds < 1) return t('pull.underASecond')
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
  if (p.state === 'done') return t('pull.done', { size: formatBytes(p.total || p.completed) })
  if (p.state === 'cancelled')
    return p.total ? t('pull.cancelledOf', { done: formatBytes(p.completed), total: formatBytes(p.total) }) : t('pull.cancelled', { done: formatBytes(p.completed) })
  if (p.state === 'failed') return p.error?.message ?? t('pull.failed')
  if (!p.total) return statusWords(p.status)
  const parts = [t('pull.of', { done: formatBytes(p.completed), total: formatBytes(p.total) })]
  if (p.bytes_per_second) parts.push(`${formatBytes(p.bytes_per_second)}/s`)
  if (p.seconds_left) parts.push(t('pull.left', { time: formatDuration(p.seconds_left) }))
  else if (p.completed < p.total && !p.bytes_per_second) parts.push(statusWords(p.status))
  if (p.resumed && p.resumed < p.total) parts.push(t('pull.resumed', { size: formatBytes(p.resumed) }))
  return parts.join(' · ')
}

/** Ollama's status words, said for people. */
export function statusWords(status: string): string {
  if (status === 'pulling manifest') return t('pull.manifest')
  if (status.startsWith('pulling ')) return t('pull.starting')
  if (status === 'verifying sha256 digest') return t('pull.verifying')
  if (status === 'writing manifest') return t('pull.installing')
  return status || t('models.starting')
}

const CAPABILITIES: Record<string, Key> = { tools: 'caps.tools', vision: 'caps.vision', thinking: 'caps.thinking', embedding: 'caps.embedding', completion: 'caps.completion', insert: 'caps.insert' }

/** A capability's name in the UI's language (an unknown one as Ollama says it). */
export function capabilityLabel(c: string): string {
  const key = CAPABILITIES[c]
  return key ? t(key) : c
}

/** The facts a model row shows after its name: size, parameters, quantisation, context. */
export function modelFacts(m: LocalModel): string[] {
  return [
    formatBytes(m.size_bytes),
    m.parameter_size ? t('pull.parameters', { n: m.parameter_size }) : '',
    m.quantization ?? '',
    m.context_length ? t('pull.context', { n: formatContext(m.context_length) }) : '',
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
  const memory = formatBytes(l.memory_bytes)
  if (l.vram_bytes <= 0) return t('pull.loaded', { memory })
  return l.vram_bytes >= l.memory_bytes ? t('pull.loadedAllGpu', { memory }) : t('pull.loadedGpu', { memory, gpu: formatBytes(l.vram_bytes) })
}
