// What to tell the user about the model provider: a pure function of ModelStatus.
import { t as tr, type Key } from './i18n/index.svelte'
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

const titles: Record<string, Key> = {
  unreachable: 'status.unreachable',
  no_models: 'status.noModels',
  model_not_found: 'status.modelNotFound',
  context_overflow: 'status.contextOverflow',
  rate_limited: 'status.rateLimited',
  auth: 'status.auth',
  bad_request: 'status.badRequest',
  server: 'status.server',
  interrupted: 'status.interrupted',
}

const typeLabels: Record<string, string> = { ollama: 'Ollama', openai: 'OpenAI-compatible', anthropic: 'Anthropic' }

/** How a banner names a provider: "Ollama", or the configured name with its type ("vllm (OpenAI-compatible)"). */
export function providerLabel(name?: string, type?: string): string {
  const t = type ? typeLabels[type] : undefined
  if (!name) return t ?? tr('status.theModelServer')
  if (!t) return typeLabels[name] ?? name
  return name === type || name.toLowerCase() === t.toLowerCase() ? t : `${name} (${t})`
}

/** The banner's title for an error kind; unreachable names the provider that failed. */
export function titleFor(kind: string, provider?: string, type?: string): string {
  if (kind === 'unreachable') return tr('status.notReachable', { who: providerLabel(provider, type) })
  return tr(titles[kind] ?? 'status.modelError')
}

function fallbackHint(kind: string, model: string, type = 'ollama'): string {
  if (type !== 'ollama') {
    if (kind === 'unreachable' || kind === 'no_models') return tr('status.hintCheckProvider')
    if (kind === 'model_not_found') return tr('status.hintPickAnother')
    return ''
  }
  switch (kind) {
    case 'unreachable':
      return tr('status.hintStartOllama')
    case 'no_models':
      return tr('status.hintPullOne')
    case 'model_not_found':
      return tr('status.hintPullModel', { model: model || '<model>' })
    default:
      return ''
  }
}

export function modelBanner(status: ModelStatus | null, chosen: string): BannerInfo | null {
  if (!status) return null
  const url = status.base_url ?? ''
  const type = status.provider_type || 'ollama'
  const who = providerLabel(status.error?.provider || status.provider, type)
  const sw = status.switched
  if (sw && sw.from && (!chosen || sameModel(chosen, sw.model))) {
    // The main model was replaced: say by which model and why, whatever the error was.
    return {
      kind: 'fallback',
      title: tr('status.usingInstead', { model: sw.model, from: sw.from }),
      message: sw.reason ? tr('status.mainUnavailableWhy', { from: sw.from, reason: sw.reason, model: sw.model }) : tr('status.mainUnavailable', { from: sw.from, model: sw.model }),
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
    return { kind: 'unreachable', title: titleFor('unreachable', status.provider, type), message: url ? tr('status.notReachableAt', { who, url }) : tr('status.notReachableDot', { who }), hint: fallbackHint('unreachable', chosen, type) }
  }
  if (!status.models || status.models.length === 0) {
    return { kind: 'no_models', title: titleFor('no_models'), message: url ? tr('status.runningNoModelsAt', { who, url }) : tr('status.runningNoModels', { who }), hint: fallbackHint('no_models', chosen, type) }
  }
  if (chosen && !hasModel(status.models, chosen)) {
    return {
      kind: 'model_not_found',
      title: titleFor('model_not_found'),
      message: type === 'ollama' ? (url ? tr('status.notInstalledAt', { model: chosen, url }) : tr('status.notInstalled', { model: chosen })) : tr('status.providerHasNo', { who, model: chosen }),
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

/** What a network failure means, from the words Go's net package ends its error with. */
const causes: [RegExp, Key][] = [
  [/connection refused/i, 'status.causeRefused'],
  [/no such host|server misbehaving/i, 'status.causeNoHost'],
  [/i\/o timeout|deadline exceeded|timed? ?out/i, 'status.causeTimeout'],
  [/network is unreachable|no route to host/i, 'status.causeUnreachable'],
  [/connection reset|broken pipe|EOF$/i, 'status.causeReset'],
  [/certificate|x509|tls:/i, 'status.causeTls'],
]

/** Where Go's wrapped cause starts in an error's text: `Post "http://…": dial tcp …`. */
const goCause = /: (?:(?:Post|Get|Put|Delete|Head) "|dial tcp|read tcp|write tcp|net\/http:|x509:|tls:|EOF$)/

/**
 * An error's message in words for the transcript: the provider's prefix ("ollama: ") and Go's
 * wrapped cause ("Post "…/api/show": dial tcp …: connect: connection refused") become one
 * sentence ("Cannot reach Ollama at http://127.0.0.1:11434: nothing is listening there."); the
 * raw text is the detail, shown on request. `detail` is empty when the words are the text.
 */
export function errorWords(message: string): { text: string; detail: string } {
  const raw = message.trim()
  let text = raw.replace(/^(ollama|openai|anthropic|llm|router|tofu-demo|[a-z][\w.-]*): (?=\S)/, '')
  const at = text.search(goCause)
  let cause = ''
  if (at >= 0) {
    const tail = text.slice(at)
    text = text.slice(0, at)
    const key = causes.find(([re]) => re.test(tail))?.[1]
    cause = key ? tr(key) : ''
  }
  text = text.charAt(0).toUpperCase() + text.slice(1)
  if (cause) text += `: ${cause}`
  if (!/[.!?]$/.test(text)) text += '.'
  return { text, detail: at >= 0 || text.replace(/\.$/, '').toLowerCase() !== raw.replace(/\.$/, '').toLowerCase() ? raw : '' }
}

/**
 * The banner, unless the screen already says the same: the first-run help of an empty
 * conversation (it names the problem and its remedies), or the last turn's error of the same
 * kind (it has its own Retry and Refresh).
 */
export function bannerShown(banner: BannerInfo | null, setup: FirstRun | null, lastError: string | null, empty: boolean): BannerInfo | null {
  if (!banner) return null
  if (setup && empty) return null
  if (lastError && lastError === banner.kind) return null
  return banner
}

/** The first-run help's one line on what is wrong, with the address it tried. */
export function firstRunReason(status: ModelStatus | null, setup: FirstRun): string {
  const who = providerLabel(status?.error?.provider || status?.provider, status?.provider_type || 'ollama')
  const url = status?.base_url ?? ''
  if (setup.kind === 'unreachable') return url ? tr('status.firstRunDownAt', { who, url }) : tr('status.firstRunDown', { who })
  return url ? tr('status.firstRunEmptyAt', { who, url }) : tr('status.firstRunEmpty', { who })
}
