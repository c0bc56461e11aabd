// What to tell the user about the model provider: a pure function of ModelStatus.
import type { ModelInfo, ModelStatus } from './types'

export type BannerInfo = {
  kind: string
  title: string
  message: string
  hint: string
}

/** `llama3.2` and `llama3.2:latest` name the same Ollama model. */
export function sameModel(a: string, b: string): boolean {
  const norm = (s: string) => (s.includes(':') ? s : `${s}:latest`)
  return norm(a) === norm(b)
}

export function hasModel(models: ModelInfo[] | null | undefined, name: string): boolean {
  return (models ?? []).some((m) => sameModel(m.name, name))
}

const titles: Record<string, string> = {
  unreachable: 'Ollama is not reachable',
  no_models: 'No models installed',
  model_not_found: 'Model not found',
  context_overflow: 'Conversation too long for the model',
  rate_limited: 'Rate limited',
  auth: 'Not authorized',
  bad_request: 'The model rejected the request',
  server: 'The model server failed',
  interrupted: 'Interrupted',
}

export function titleFor(kind: string): string {
  return titles[kind] ?? 'Model error'
}

function fallbackHint(kind: string, model: string): string {
  switch (kind) {
    case 'unreachable':
      return 'Start it with `ollama serve`, or point Tofu at it: set OLLAMA_HOST, or the Ollama base URL in Settings.'
    case 'no_models':
      return 'Download one with `ollama pull <model>` (for example `ollama pull qwen3`), then Refresh.'
    case 'model_not_found':
      return `Run \`ollama pull ${model || '<model>'}\`, or pick another model.`
    default:
      return ''
  }
}

export function modelBanner(status: ModelStatus | null, chosen: string): BannerInfo | null {
  if (!status) return null
  const where = status.base_url ? ` at ${status.base_url}` : ''
  if (status.error) {
    const kind = status.error.kind || 'server'
    return {
      kind,
      title: titleFor(kind),
      message: status.error.message,
      hint: status.error.hint || fallbackHint(kind, chosen),
    }
  }
  if (!status.reachable) {
    return { kind: 'unreachable', title: titleFor('unreachable'), message: `Ollama is not reachable${where}.`, hint: fallbackHint('unreachable', chosen) }
  }
  if (!status.models || status.models.length === 0) {
    return { kind: 'no_models', title: titleFor('no_models'), message: `Ollama is running${where} but has no models.`, hint: fallbackHint('no_models', chosen) }
  }
  if (chosen && !hasModel(status.models, chosen)) {
    return {
      kind: 'model_not_found',
      title: titleFor('model_not_found'),
      message: `The model “${chosen}” is not installed in Ollama${where}.`,
      hint: fallbackHint('model_not_found', chosen),
    }
  }
  return null
}

/** Splits a hint on backticks so commands can be shown as code without innerHTML. */
export function hintParts(hint: string): { code: boolean; text: string }[] {
  return hint
    .split('`')
    .map((text, i) => ({ code: i % 2 === 1, text }))
    .filter((p) => p.text !== '')
}
