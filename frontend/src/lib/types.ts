// Shapes of the Go services' JSON, as documented in docs/API.md.

// The protocol's values and the event payloads are generated from the Go types
// (protocol.gen.ts, by backend/protocol): import them from here or from there, never copy them.
import type { ErrorKind as GoErrorKind, EventType, MessageKind, PaperInfo, StreamState } from './protocol.gen'
export type {
  Approval,
  AssistantMessage,
  Attachment,
  Attempt as CallAttempt,
  CallReport,
  Compaction,
  DecidedBy,
  EndReason,
  EventPayloads,
  EventType,
  HistoryMatch,
  MemoryFound,
  MemoryRecord,
  Skill,
  InterruptReason,
  MessageKind,
  PaperInfo,
  Phase,
  PhaseRole,
  PhaseState,
  Purpose,
  Retrieval,
  RetrievalMethod,
  SessionInfo,
  SessionMode,
  StreamState,
  ToolResult,
  Translation,
  TranslationItem,
  TranslationProgress,
  TranslationState,
  TurnEnd,
  Usage,
  Verdict,
} from './protocol.gen'

/** One row of the toolbar's Tools menu (SessionService.ToolFamilies): `family` is a ToolFamily
 * or "mcp:NAME"; `blocked` says why it is off in every conversation (a Settings safety switch). */
export type ToolFamilyState = {
  family: string
  label: string
  on: boolean
  /** Its tools wait for tool_search unless the conversation turned it on (every family but coding). */
  deferred?: boolean
  /** The conversation turned it on: its tools are offered from the next request. */
  offered?: boolean
  blocked?: string
}

/** The modes of an agent session (SessionService.SetMode; SessionInfo.mode, absent for chat). */
export type { SessionMode as AgentMode } from './protocol.gen'

export type Event = {
  session: string
  seq: number
  time: string
  /** A front end skips types it does not know (a newer Tofu wrote them). */
  type: EventType
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
  /** Ollama's quantization level (Q4_K_M, F16, …). */
  quantization?: string
  size_bytes?: number
  /** The server lists no capabilities (Ollama before 0.6.4): read from the template. */
  capabilities_derived?: boolean
}

export type ErrorKind = GoErrorKind

export type ProviderError = {
  kind: ErrorKind | string
  provider?: string
  message: string
  hint?: string
  status_code?: number
}

export type ModelStatus = {
  provider: string
  /** ollama, openai or anthropic: banners name the kind of server that failed. */
  provider_type?: string
  base_url: string
  reachable: boolean
  models: ModelInfo[] | null
  default_model: string
  error?: ProviderError | null
  /** "Try the demo" runs: the built-in scripted model answers, for this run only. */
  demo?: boolean
  /** The demo's scratch folder while it runs: a conversation there gets the tour. */
  demo_workspace?: string
  /** The main model of the settings was not available, so `default_model` replaced it. */
  switched?: { model: string; from?: string; reason?: string; startup?: boolean } | null
}

export type ProviderType = 'ollama' | 'openai' | 'anthropic'
export type Thinking = 'off' | 'low' | 'medium' | 'high'

/** A configured model server; `name` prefixes model references ("name/model"). */
export type ProviderConfig = { name: string; type: ProviderType; base_url?: string }

/** ModelService.TestImages: how many models the images provider listed, whether the model is one. */
export type ImagesCheck = { models: number; listed: boolean; error?: string }

/** ModelService.TestProvider: how many models one provider listed, or why it could not. */
export type ProviderCheck = { models: number; error?: ProviderError | null }

/** SettingsService.Get / Update / SetAPIKeys (docs/API.md). */
export type Settings = {
  providers: ProviderConfig[]
  /** Model references: "model" (on the first provider) or "provider/model". */
  models: { main?: string; cheap?: string; translation?: string }
  /** Model references tried in order when the chosen model keeps failing. */
  fallback?: string[] | null
  thinking?: Thinking | ''
  /** 0 = the default (32,768): Ollama's num_ctx cap. */
  context_window_cap?: number
  /** Lets Tofu itself reach the web (arXiv downloads); off by default. */
  web_access?: boolean
  /** Shows the agent's browser window instead of running it headless. */
  browser_visible?: boolean
  /** Lets agent turns see and drive the X11 desktop (docs/DESKTOP.md); off by default. */
  desktop?: boolean
  /** Off: no memory record is put before agent turns (the memory tools stay). */
  memory_recall_off?: boolean
  /** Where the agent's commands run: absent or 'sandbox' (the default), or 'unconfined' (docs/SECURITY.md). */
  commands?: '' | 'sandbox' | 'unconfined'
  /** Read-only: whether this machine can sandbox commands, with what, or why not. */
  sandbox?: { available: boolean; mechanism?: string; why?: string }
  /** My Day's report is written every day at this local time, "HH:MM"; absent: only when asked. */
  myday_at?: string
  /** generate_image's OpenAI-compatible images API (absent: the tool is not offered); its key is tool_keys.images. */
  images?: { base_url?: string; model?: string }
  /** web_search's provider ('' : a SearXNG URL, else a Brave key, else DuckDuckGo); Brave's key is tool_keys.brave. */
  web_search?: { provider?: '' | 'duckduckgo' | 'searxng' | 'brave'; searxng_url?: string }
  /** Private hosts fetch_url may reach (a NAS, an intranet wiki). */
  web_allow_hosts?: string[] | null
  /** Read-only: the tools' keys ("images", "brave"), masked ("sk-…a1b2"; "" none stored). */
  tool_keys?: Record<string, string> | null
  /** Approval rules (docs/TOOLS.md#rules); "Always allow" adds to them. */
  permissions?: { rules?: PermissionRule[] | null }
  /** Read-only: how many API keys each provider has stored (never the keys). */
  api_keys?: Record<string, number> | null
  /** Read-only: where config.json lives. */
  config_path?: string
  /** Read-only: names the configuration read, so Save keeps rules "Always allow" added since. */
  revision?: string
  /** Read-only: "keyring" or the path of the 0600 file keeping the keys. */
  keys_store?: string
  /** Read-only: what an empty base URL means per provider type (Ollama's follows OLLAMA_HOST). */
  default_base_urls?: Record<string, string> | null
  /** Read-only: the provider of "Try the demo" while it runs (never saved). */
  demo?: ProviderConfig | null
}

export type RuleAction = 'allow' | 'ask' | 'deny'

/** One approval rule of the settings (backend/config.PermissionRule). */
export type PermissionRule = {
  /** A tool (run_command, edit_files…) or an access kind (read, write, exec, network). */
  tool: string
  pattern: string
  action: RuleAction
  /** "global" (or absent) for every workspace, else a workspace's absolute path. */
  scope?: string
  /** Where it came from: "settings", "always-allow on … in session …"; absent: by hand. */
  source?: string
}

/** An approval's answer (ChatService.Approve): store.Decision, the values of permission.Answer. */
export type { Decision } from './protocol.gen'

/** What arrives on the `session:<id>` topic. */
export type SessionMessage =
  | { kind: typeof MessageKind.Event; event: Event }
  | { kind: typeof MessageKind.Delta; text?: string; reasoning?: string }
  /** error (on ended): the turn stopped because its log could not be written; the log cannot say so. */
  | { kind: typeof MessageKind.Stream; state: StreamState; error?: string }
  /** The router re-runs a call whose stream broke: what streamed so far is void. */
  | { kind: typeof MessageKind.Reset; text?: string }

export type BBox = { x0: number; y0: number; x1: number; y1: number }
export type Chunk = { id: number; section?: string; pages: number[]; text: string; words: number; boxes?: { page: number; bbox: BBox }[] }
export type Section = { title: string; level: number; page: number; kind?: string }

export type PaperView = { info: PaperInfo; pdf_url: string; sections: Section[] | null; chunks: Chunk[] | null; report?: string }


/** An MCP server in config.json's mcpServers (Claude Desktop's shape plus Tofu's fields; docs/MCP.md). */
export type McpServerConfig = {
  type?: 'stdio' | 'http' | 'sse' | string
  command?: string
  args?: string[] | null
  env?: Record<string, string> | null
  cwd?: string
  url?: string
  headers?: Record<string, string> | null
  enabled?: boolean
  trusted?: boolean
  startupTimeout?: number
  timeout?: number
  disabledTools?: string[] | null
}

export type McpStatus = 'disabled' | 'connecting' | 'connected' | 'failed'

/** MCPService.Servers and the "mcp" topic: a server's configuration and state. */
export type McpServer = {
  name: string
  status: McpStatus
  transport: string
  /** Why it failed or is restarting, with the fix when known. */
  error?: string
  /** The end of its stderr. */
  stderr?: string
  restarts?: number
  /** The name and version it announced. */
  server?: string
  protocol?: string
  tools: { name: string; description: string; read_only?: boolean; disabled?: boolean }[]
  config: McpServerConfig
}

/** MCPService.ImportSources: another client's file and the servers importing it would add. */
export type McpSource = {
  client: string
  path: string
  servers: { name: string; from?: string; server: McpServerConfig; exists: boolean; same: boolean }[] | null
  error?: string
}

/** MCPService.Resources: a server's resource, or resource template (its `uri` holds
 * {variables} the user fills in), offered in the composer's attach menu. */
export type McpResource = {
  server: string
  uri: string
  name: string
  title?: string
  description?: string
  mime_type?: string
  template?: boolean
  variables?: string[] | null
}

/** MCPService.Prompts: a server's prompt, offered in the composer as /server:name. */
export type McpPrompt = {
  server: string
  name: string
  title?: string
  description?: string
  arguments?: { name: string; description?: string; required?: boolean }[] | null
}
