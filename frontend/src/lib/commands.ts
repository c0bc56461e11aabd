// The conversation's own commands, typed in the composer: /compact, /model, /clear, /cost. Pure:
// parsing, the completion list and the /cost line; app.svelte.ts runs them.
import { t } from './i18n/index.svelte'
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
  if (!cmd) return { error: t('command.unknown', { name, list: COMMANDS.map((c) => '/' + c.name).join(', ') }) }
  if ((name === 'clear' || name === 'cost') && arg) return { error: t('command.noArgument', { name }) }
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
  if (near.length > 1) return { error: t('command.modelAmbiguous', { q, n: near.length, list: near.slice(0, 5).join(', ') + (near.length > 5 ? ', …' : '') }) }
  return { error: t('command.modelMissing', { q, list: models.slice(0, 6).join(', ') || t('command.none') }) }
}

/** /cost's answer: the conversation's calls, tokens (cached share) and cost from its usage
 * events. A cost is known only for priced models; some unpriced calls get a "*". */
export function costLine(tot: Totals): string {
  if (tot.calls === 0) return t('cost.none')
  const parts = [
    tot.calls === 1 ? t('cost.oneCall') : t('cost.calls', { n: tot.calls }),
    tot.cached > 0 ? t('cost.inCached', { n: exact(tot.input), share: percent(tot.cached / Math.max(1, tot.input)) }) : t('cost.in', { n: exact(tot.input) }),
    t('cost.out', { n: exact(tot.output) }),
  ]
  if (tot.reasoning > 0) parts.push(t('cost.reasoning', { n: exact(tot.reasoning) }))
  if (tot.cost !== undefined) parts.push(t('cost.cost', { cost: formatCost(tot.cost) + (tot.priced < tot.calls ? '*' : '') }))
  else parts.push(t('cost.unpriced'))
  return parts.join(' · ') + (tot.cost !== undefined && tot.priced < tot.calls ? t('cost.someUnpriced') : '')
}
