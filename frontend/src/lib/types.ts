// Shapes of the Go services' JSON, as documented in docs/API.md.

export type SessionInfo = {
  id: string
  title: string
  created: string
  updated: string
  model?: string
  events: number
  paper?: string
  purpose?: 'qa' | 'report'
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

export type PaperInfo = {
  id: string
  name: string
  title: string
  authors?: string[]
  year?: number
  pages: number
  size: number
  words: number
  chunks: number
  repaired?: boolean
  added: string
  opened?: string
  qa?: string
  report?: string
  translations?: string[]
}

export type BBox = { x0: number; y0: number; x1: number; y1: number }
export type Chunk = { id: number; section?: string; pages: number[]; text: string; words: number; boxes?: { page: number; bbox: BBox }[] }
export type Section = { title: string; level: number; page: number; kind?: string }

export type PaperView = { info: PaperInfo; pdf_url: string; sections: Section[] | null; chunks: Chunk[] | null; report?: string }

/** Payload of a `retrieval` event (docs/EVENTS.md). */
export type Retrieval = {
  paper: string
  query: string
  method: 'bm25' | 'full_text' | 'first_chunks'
  chunks: { id: number; pages: number[]; section?: string; score?: number }[]
  words: number
}

export type TranslationItem = { page: number; kind: string; source: string; text?: string; skipped?: boolean }
export type Translation = { lang: string; model: string; done: boolean; items: TranslationItem[] }
export type TranslationProgress = { kind: 'translation'; lang: string; done: number; total: number; state: 'running' | 'done' | 'stopped' | 'error'; error?: string }
