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

const typeLabels: Record<string, string> = { ollama: 'Ollama', openai: 'OpenAI-compatible', anthropic: 'Anthropic' }

/** How a banner names a provider: "Ollama", or the configured name with its type ("vllm (OpenAI-compatible)"). */
export function providerLabel(name?: string, type?: string): string {
  const t = type ? typeLabels[type] : undefined
  if (!name) return t ?? 'The model server'
  if (!t) return typeLabels[name] ?? name
  return name === type || name.toLowerCase() === t.toLowerCase() ? t : `${name} (${t})`
}

/** The banner's title for an error kind; unreachable names the provider that failed. */
export function titleFor(kind: string, provider?: string, type?: string): string {
  if (kind === 'unreachable') return `${providerLabel(provider, type)} is not reachable`
  return titles[kind] ?? 'Model error'
}

function fallbackHint(kind: string, model: string, type = 'ollama'): string {
  if (type !== 'ollama') {
    if (kind === 'unreachable' || kind === 'no_models') return 'Check the base URL and API key of the provider in Settings, then Refresh.'
    if (kind === 'model_not_found') return 'Pick another model, or change the main model in Settings.'
    return ''
  }
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
  const type = status.provider_type || 'ollama'
  const who = providerLabel(status.error?.provider || status.provider, type)
  const sw = status.switched
  if (sw && sw.from && (!chosen || sameModel(chosen, sw.model))) {
    // The main model was replaced: say by which model and why, whatever the error was.
    return {
      kind: 'fallback',
      title: `Using ${sw.model} instead of ${sw.from}`,
      message: `The main model ${sw.from} is not available${sw.reason ? ': ' + sw.reason : ''}. Replies come from ${sw.model}.`,
      hint: status.error?.hint || fallbackHint(status.error?.kind || 'model_not_found', sw.from, type),
    }
  }
  if (status.error) {
    const kind = status.error.kind || 'server'
    return {
      kind,
      title: titleFor(kind, status.error.provider || status.provider, type),
      message: status.error.message,
      hint: status.error.hint || fallbackHint(kind, chosen, type),
    }
  }
  if (!status.reachable) {
    return { kind: 'unreachable', title: titleFor('unreachable', status.provider, type), message: `${who} is not reachable${where}.`, hint: fallbackHint('unreachable', chosen, type) }
  }
  if (!status.models || status.models.length === 0) {
    return { kind: 'no_models', title: titleFor('no_models'), message: `${who} is running${where} but has no models.`, hint: fallbackHint('no_models', chosen, type) }
  }
  if (chosen && !hasModel(status.models, chosen)) {
    return {
      kind: 'model_not_found',
      title: titleFor('model_not_found'),
      message: type === 'ollama' ? `The model “${chosen}” is not installed in Ollama${where}.` : `${who} has no model “${chosen}”.`,
      hint: fallbackHint('model_not_found', chosen, type),
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

/** The small tool-capable model the first-run help suggests pulling (about 5 GB). */
export const SUGGESTED_MODEL = 'qwen3:8b'

export type FirstRun = {
  /** The provider cannot answer at all: unreachable, or reachable with no model. */
  kind: 'unreachable' | 'no_models'
  /** Ollama's commands apply (start it, pull a model); other types point at Settings. */
  ollama: boolean
}

/** What the empty conversation offers a user with no working model: how to start Ollama and
 * pull a model, another provider, or the built-in demo. Null once a model can answer, and
 * while the demo runs. */
export function firstRun(status: ModelStatus | null): FirstRun | null {
  if (!status || status.demo) return null
  const kind = status.error?.kind ?? (!status.reachable ? 'unreachable' : (status.models ?? []).length === 0 ? 'no_models' : '')
  if (kind !== 'unreachable' && kind !== 'no_models') return null
  return { kind, ollama: (status.provider_type || 'ollama') === 'ollama' }
}
