// The conversation's own commands, typed in the composer: /compact, /model, /clear, /cost. Pure:
// parsing, the completion list and the /cost line; app.svelte.ts runs them.
import type { Totals } from './tokens'
import type { Key } from './i18n/en'
import { exact, formatCost, percent } from './tokens'

export type CommandName = 'compact' | 'model' | 'clear' | 'cost'

/** key: the description's key in the catalogue (lib/i18n). */
export type Command = { name: CommandName; usage: string; key: Key }

/** Every built-in command, in the order the completion lists them. */
export const COMMANDS: readonly Command[] = [
  { name: 'compact', usage: '/compact [instruction]', key: 'command.compact' },
  { name: 'model', usage: '/model [name]', key: 'command.model' },
  { name: 'clear', usage: '/clear', key: 'command.clear' },
  { name: 'cost', usage: '/cost', key: 'command.cost' },
]

/** A built-in command and its argument; null when text is not one (an MCP prompt is
 * `/server:name`, plain text has no leading slash). An unknown `/word` is an error, so a typo
 * is not sent to the model. */
export function parseCommand(text: string): { name: CommandName; arg: string } | { error: string } | null {
  const m = /^\/([a-z]+)(?:\s+([\s\S]*))?$/i.exec(text.trim())
  if (!m) return null
  const name = m[1]!.toLowerCase()
  const arg = (m[2] ?? '').trim()
  const cmd = COMMANDS.find((c) => c.name === name)
  if (!cmd) return { error: `Unknown command /${name}: the commands are ${COMMANDS.map((c) => '/' + c.name).join(', ')}.` }
  if ((name === 'clear' || name === 'cost') && arg) return { error: `/${name} takes no argument.` }
  return { name: cmd.name, arg }
}

/** The commands the completion offers for what is typed: while the text is "/" and a few
 * letters of a command's name (no space yet), those whose name starts with them. */
export function commandMatches(text: string): Command[] {
  const m = /^\/([a-z]*)$/i.exec(text)
  if (!m) return []
  const q = m[1]!.toLowerCase()
  return COMMANDS.filter((c) => c.name.startsWith(q))
}

/** The model a `/model name` means among the installed ones: the exact name, else the one
 * name with `:latest` or a tag added, else the only one containing it; an error otherwise. */
export function resolveModel(arg: string, models: readonly string[]): { model: string } | { error: string } {
  const q = arg.trim()
  if (models.includes(q)) return { model: q }
  const tagged = models.filter((m) => m === `${q}:latest` || m.split(':')[0] === q)
  if (tagged.length === 1) return { model: tagged[0]! }
  const near = models.filter((m) => m.toLowerCase().includes(q.toLowerCase()))
  if (near.length === 1) return { model: near[0]! }
  if (near.length > 1) return { error: `"${q}" matches ${near.length} models: ${near.slice(0, 5).join(', ')}${near.length > 5 ? ', …' : ''}.` }
  return { error: `No model "${q}" here. Installed: ${models.slice(0, 6).join(', ') || 'none'}.` }
}

/** /cost's answer: the conversation's calls, tokens (cached share) and cost from its usage
 * events. A cost is known only for priced models; some unpriced calls get a "*". */
export function costLine(t: Totals): string {
  if (t.calls === 0) return 'No model calls yet in this conversation.'
  const parts = [
    `${t.calls} model call${t.calls === 1 ? '' : 's'}`,
    `${exact(t.input)} tokens in${t.cached > 0 ? ` (${percent(t.cached / Math.max(1, t.input))} cached)` : ''}`,
    `${exact(t.output)} out`,
  ]
  if (t.reasoning > 0) parts.push(`${exact(t.reasoning)} reasoning`)
  if (t.cost !== undefined) parts.push(`cost ${formatCost(t.cost)}${t.priced < t.calls ? '*' : ''}`)
  else parts.push('no cost: the models are not priced (local)')
  return parts.join(' · ') + (t.cost !== undefined && t.priced < t.calls ? ' (* some calls were not priced)' : '')
}
