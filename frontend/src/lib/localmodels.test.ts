import { describe, expect, it } from 'vitest'
import { formatBytes, formatContext, formatDuration, loadedLine, modelFacts, percent, progressLine, statusWords } from './localmodels'
import type { LocalModel, PullProgress } from './protocol.gen'

const running = (over: Partial<PullProgress>): PullProgress => ({ model: 'qwen3:8b', state: 'running', status: 'pulling a1b2c3d4e5f6', completed: 0, total: 0, ...over })

describe('local models', () => {
  it('writes sizes, durations and context lengths', () => {
    expect(formatBytes(999)).toBe('999 B')
    expect(formatBytes(5_200_000_000)).toBe('5.2 GB')
    expect(formatBytes(474_000)).toBe('474 KB')
    expect(formatDuration(42)).toBe('42 s')
    expect(formatDuration(0.13)).toBe('under a second')
    expect(formatDuration(245)).toBe('4 min 05 s')
    expect(formatDuration(4800)).toBe('1 h 20 min')
    expect(formatContext(131072)).toBe('128k')
    expect(formatContext(1000)).toBe('1000')
  })

  it('says bytes, speed and time left under the bar', () => {
    const p = running({ completed: 1_300_000_000, total: 5_200_000_000, bytes_per_second: 12_500_000, seconds_left: 312 })
    expect(percent(p)).toBe(25)
    expect(progressLine(p)).toBe('1.3 GB of 5.2 GB · 12.5 MB/s · 5 min 12 s left')
    expect(progressLine(running({ completed: 2_600_000_000, total: 5_200_000_000, resumed: 2_600_000_000 }))).toBe(
      '2.6 GB of 5.2 GB · Starting the download… · 2.6 GB were already here',
    )
    expect(progressLine(running({ status: 'pulling manifest' }))).toBe('Reading the manifest…')
    expect(percent(running({}))).toBe(0)
  })

  it('ends with what happened', () => {
    expect(progressLine(running({ state: 'done', completed: 5_200_000_000, total: 5_200_000_000 }))).toBe('Pulled 5.2 GB.')
    expect(progressLine(running({ state: 'cancelled', completed: 237_000, total: 474_000 }))).toBe(
      'Cancelled at 237 KB of 474 KB: pull again to continue from there.',
    )
    const offline = 'Could not reach the model registry registry.ollama.ai to pull qwen3:8b: this machine seems to be offline (connect: connection refused).'
    expect(progressLine(running({ state: 'failed', error: { kind: 'unreachable', message: offline } }))).toBe(offline)
    expect(statusWords('verifying sha256 digest')).toBe('Checking the download…')
  })

  it('lists a model with its facts and the memory it holds', () => {
    const m: LocalModel = {
      name: 'qwen3:8b', digest: 'x', size_bytes: 5_200_000_000, modified_at: '', parameter_size: '8.2B', quantization: 'Q4_K_M',
      context_length: 40960, capabilities: ['tools', 'thinking'],
    }
    expect(modelFacts(m)).toEqual(['5.2 GB', '8.2B parameters', 'Q4_K_M', '40k context'])
    expect(loadedLine(m)).toBe('')
    expect(loadedLine({ ...m, loaded: { memory_bytes: 6_100_000_000, vram_bytes: 0, expires_at: '' } })).toBe('Loaded: 6.1 GB of memory')
    expect(loadedLine({ ...m, loaded: { memory_bytes: 6_100_000_000, vram_bytes: 6_100_000_000, expires_at: '' } })).toBe('Loaded: 6.1 GB of memory, all on the GPU')
  })
})
