import { describe, expect, it } from 'vitest'
import { bannerShown, errorWords, firstRun, hintParts, modelBanner, providerLabel, titleFor } from './status'
import type { ModelStatus } from './types'

const base: ModelStatus = { provider: 'ollama', base_url: 'http://127.0.0.1:11434', reachable: true, models: [{ name: 'qwen3:latest', provider: 'ollama' }], default_model: 'qwen3' }

describe('modelBanner', () => {
  it('is quiet when the chosen model is installed (name without :latest too)', () => {
    expect(modelBanner(base, 'qwen3')).toBeNull()
    expect(modelBanner(base, 'qwen3:latest')).toBeNull()
  })
  it('shows the provider error message and hint as given', () => {
    const b = modelBanner({ ...base, reachable: false, models: [], error: { kind: 'unreachable', message: 'Ollama is not reachable at http://x', hint: 'start `ollama serve`' } }, 'qwen3')
    expect(b).toMatchObject({ kind: 'unreachable', message: 'Ollama is not reachable at http://x', hint: 'start `ollama serve`' })
  })
  it('explains unreachable, no models and a missing model without an error object', () => {
    expect(modelBanner({ ...base, reachable: false }, '')!.hint).toContain('ollama serve')
    expect(modelBanner({ ...base, reachable: false }, '')!.hint).toContain('OLLAMA_HOST')
    expect(modelBanner({ ...base, models: [] }, '')!.hint).toContain('ollama pull')
    const missing = modelBanner(base, 'llama3.2')!
    expect(missing.kind).toBe('model_not_found')
    expect(missing.hint).toContain('ollama pull llama3.2')
  })
  it('names the provider that failed, not Ollama (regression: an OpenAI-compatible server was "Ollama is not reachable")', () => {
    const vllm: ModelStatus = { provider: 'vllm', provider_type: 'openai', base_url: 'http://10.0.0.2:8000/v1', reachable: false, models: [], default_model: 'qwen' }
    const b = modelBanner({ ...vllm, error: { kind: 'unreachable', provider: 'vllm', message: 'connection refused' } }, 'qwen')!
    expect(b.title).toBe('vllm (OpenAI-compatible) is not reachable')
    expect(b.hint).not.toContain('ollama')
    expect(b.hint).toContain('base URL')
    expect(modelBanner(vllm, 'qwen')!.message).toBe('vllm (OpenAI-compatible) is not reachable at http://10.0.0.2:8000/v1.')
    expect(modelBanner({ ...vllm, reachable: true, models: [{ name: 'other', provider: 'vllm' }] }, 'qwen')!.hint).not.toContain('ollama')
    expect(modelBanner({ ...base, reachable: false }, '')!.title).toBe('Ollama is not reachable')
    expect(providerLabel('anthropic', 'anthropic')).toBe('Anthropic')
    expect(providerLabel('openai', 'openai')).toBe('OpenAI-compatible')
    expect(titleFor('unreachable', 'ollama')).toBe('Ollama is not reachable')
    expect(titleFor('unreachable', 'my-server')).toBe('my-server is not reachable')
    expect(titleFor('unreachable')).toBe('The model server is not reachable')
  })
  it('says when the main model was replaced at startup, naming both models and why', () => {
    const b = modelBanner(
      {
        ...base,
        default_model: 'backup/m',
        switched: { model: 'backup/m', from: 'qwen3:8b', reason: 'cannot reach Ollama at http://x', startup: true },
        error: { kind: 'unreachable', message: '1 provider(s) did not answer', hint: 'start `ollama serve`' },
      },
      'backup/m',
    )!
    expect(b.kind).toBe('fallback')
    expect(b.title).toBe('Using backup/m instead of qwen3:8b')
    expect(b.message).toBe('The main model qwen3:8b is not available: cannot reach Ollama at http://x. Replies come from backup/m.')
    expect(b.hint).toBe('start `ollama serve`')
  })
  it('splits hints into text and code', () => {
    expect(hintParts('run `ollama serve` now')).toEqual([
      { code: false, text: 'run ' },
      { code: true, text: 'ollama serve' },
      { code: false, text: ' now' },
    ])
  })
})

describe('firstRun', () => {
  const down: ModelStatus = { ...base, reachable: false, models: [], error: { kind: 'unreachable', message: 'refused' } }
  it('offers Ollama commands when Ollama is down or empty', () => {
    expect(firstRun(down)).toEqual({ kind: 'unreachable', ollama: true })
    expect(firstRun({ ...base, models: [] })).toEqual({ kind: 'no_models', ollama: true })
  })
  it('points other provider types at Settings, not at ollama', () => {
    expect(firstRun({ ...down, provider_type: 'openai' })).toEqual({ kind: 'unreachable', ollama: false })
  })
  it('is quiet when a model can answer, for other errors, and while the demo runs', () => {
    expect(firstRun(null)).toBeNull()
    expect(firstRun(base)).toBeNull()
    expect(firstRun({ ...base, error: { kind: 'model_not_found', message: 'x' } })).toBeNull()
    expect(firstRun({ ...down, demo: true })).toBeNull()
  })
})

describe('errorWords', () => {
  it('says a refused connection in words and keeps Go\'s text as the detail (regression: issue 36)', () => {
    const raw = 'ollama: cannot reach Ollama at http://127.0.0.1:11434: Post "http://127.0.0.1:11434/api/show": dial tcp 127.0.0.1:11434: connect: connection refused'
    const w = errorWords(raw)
    expect(w.text).toBe('Cannot reach Ollama at http://127.0.0.1:11434: nothing is listening there.')
    expect(w.detail).toBe(raw)
  })
  it('names unknown hosts and timeouts', () => {
    expect(errorWords('openai: cannot reach vllm at http://gpu:8000/v1: Get "http://gpu:8000/v1/models": dial tcp: lookup gpu: no such host').text).toBe(
      'Cannot reach vllm at http://gpu:8000/v1: that host name is unknown.',
    )
    expect(errorWords('cannot reach x: Post "http://x/api/chat": dial tcp 10.0.0.1:80: i/o timeout').text).toBe('Cannot reach x: it did not answer in time.')
  })
  it('leaves a sentence alone and has no detail then', () => {
    expect(errorWords('The model rejected the request.')).toEqual({ text: 'The model rejected the request.', detail: '' })
  })
})

describe('bannerShown', () => {
  const b = { kind: 'unreachable', title: 'Ollama is not reachable', message: '', hint: '' }
  it('gives way to the first-run help in an empty conversation, and to the same error in the transcript', () => {
    expect(bannerShown(b, { kind: 'unreachable', ollama: true }, null, true)).toBeNull()
    expect(bannerShown(b, { kind: 'unreachable', ollama: true }, null, false)).toBe(b)
    expect(bannerShown(b, null, 'unreachable', false)).toBeNull()
    expect(bannerShown(b, null, 'server', false)).toBe(b)
  })
})
