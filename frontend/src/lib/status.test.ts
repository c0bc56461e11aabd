import { describe, expect, it } from 'vitest'
import { hintParts, modelBanner } from './status'
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
  it('splits hints into text and code', () => {
    expect(hintParts('run `ollama serve` now')).toEqual([
      { code: false, text: 'run ' },
      { code: true, text: 'ollama serve' },
      { code: false, text: ' now' },
    ])
  })
})
