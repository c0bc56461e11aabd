// MCP servers in Settings: what a server's line says, and reading a server pasted in the shape
// other clients write (docs/MCP.md). No component logic here.
import { t as tr } from './i18n/index.svelte'
import type { McpPrompt, McpServer, McpServerConfig } from './types'

/** One line for a server's status. */
export function statusLine(s: McpServer): string {
  switch (s.status) {
    case 'connected': {
      const on = s.tools.filter((t) => !t.disabled).length
      const tools = on === s.tools.length ? tr('mcpline.tools', { n: s.tools.length }) : tr('mcpline.toolsOn', { on, n: s.tools.length })
      return `${s.server ? tr('mcpline.connectedTo', { server: s.server.trim() }) : tr('mcpline.connected')} · ${tools}`
    }
    case 'failed':
      return tr('mcpline.failed')
    case 'disabled':
      return tr('mcpline.off')
    default:
      return s.restarts ? tr('mcpline.restarting', { n: s.restarts, s: s.restarts > 1 ? 's' : '' }) : tr('models.starting')
  }
}

/** How the server is reached: its command line or its URL. */
export function endpoint(c: McpServerConfig): string {
  if (c.command) return [c.command, ...(c.args ?? [])].join(' ')
  return `${c.url ?? ''}${c.type === 'sse' ? ' (SSE)' : ''}`
}

const NAME = /^[A-Za-z0-9_-]{1,40}$/

/**
 * Reads pasted JSON: {"mcpServers": {...}} as Claude Desktop, Claude Code and Cursor write it,
 * {"servers": {...}} (VS Code), a map of name → server, or one server (then named by name).
 * Returns the servers or the problem in words.
 */
export function parsePasted(text: string, name = ''): { servers: { name: string; server: McpServerConfig }[] } | { error: string } {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (err) {
    return { error: tr('mcpline.notJson', { error: (err as Error).message }) }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: tr('mcpline.pasteObject') }
  const o = v as Record<string, unknown>
  const isServer = (x: unknown) => !!x && typeof x === 'object' && ('command' in (x as object) || 'url' in (x as object))
  let map: Record<string, unknown>
  if (isServer(o)) {
    if (!NAME.test(name)) return { error: tr('mcpline.giveName') }
    map = { [name]: o }
  } else {
    map = (o.mcpServers ?? o.servers ?? o) as Record<string, unknown>
  }
  const servers: { name: string; server: McpServerConfig }[] = []
  for (const [n, s] of Object.entries(map)) {
    if (!isServer(s)) return { error: tr('mcpline.noCommand', { name: n }) }
    if (!NAME.test(n) || n.includes('__')) return { error: tr('mcpline.badName', { name: n }) }
    servers.push({ name: n, server: s as McpServerConfig })
  }
  if (servers.length === 0) return { error: tr('mcpline.noServer') }
  return { servers }
}

/** The command a prompt is typed as. */
export function promptCommand(p: McpPrompt): string {
  return `/${p.server}:${p.name}`
}

/** Whether text is a prompt command ("/server:name …"), which is expanded before sending. */
export function isPromptCommand(text: string): boolean {
  return /^\/[A-Za-z0-9_-]+:[^\s]+/.test(text.trimStart())
}

/** The prompts a composer text beginning with "/" may be completed to (none once a space was typed). */
export function promptMatches(text: string, prompts: McpPrompt[]): McpPrompt[] {
  if (!text.startsWith('/') || /\s/.test(text)) return []
  const q = text.slice(1).toLowerCase()
  return prompts.filter((p) => `${p.server}:${p.name}`.toLowerCase().includes(q) || (p.title ?? '').toLowerCase().includes(q)).slice(0, 8)
}

/** How a prompt's arguments are typed after it, for the menu. */
export function argsHint(p: McpPrompt): string {
  return (p.arguments ?? []).map((a) => (a.required ? `${a.name}=…` : `[${a.name}=…]`)).join(' ')
}
