// Shapes of the Go services' JSON, as documented in docs/API.md.

export type SessionInfo = {
  id: string
  title: string
  created: string
  updated: string
  model?: string
  events: number
}

export type EventType = 'user' | 'assistant' | 'usage' | 'error' | 'interrupted'

export type Event = {
  session: string
  seq: number
  time: string
  type: EventType | string
  data: unknown
}

export type Capability = 'tools' | 'vision' | 'thinking'

export type ModelInfo = {
  name: string
  provider: string
  context_length?: number
  context_window?: number
  capabilities?: Capability[]
  family?: string
  parameter_size?: string
  size_bytes?: number
}

export type ErrorKind =
  | 'unreachable'
  | 'no_models'
  | 'model_not_found'
  | 'context_overflow'
  | 'rate_limited'
  | 'auth'
  | 'bad_request'
  | 'server'
  | 'interrupted'

export type ProviderError = {
  kind: ErrorKind | string
  provider?: string
  message: string
  hint?: string
  status_code?: number
}

export type ModelStatus = {
  provider: string
  base_url: string
  reachable: boolean
  models: ModelInfo[] | null
  default_model: string
  error?: ProviderError | null
}

export type Settings = {
  ollama_base_url: string
  default_model: string
  context_window_cap: number
}

export type Usage = {
  model?: string
  input_tokens: number
  output_tokens: number
  reasoning_tokens?: number
  cache_read_tokens?: number
  cache_write_tokens?: number
  context_window?: number
  duration_ms?: number
}

/** What arrives on the `session:<id>` topic. */
export type SessionMessage =
  | { kind: 'event'; event: Event }
  | { kind: 'delta'; text?: string; reasoning?: string }
  | { kind: 'stream'; state: 'started' | 'ended' }
