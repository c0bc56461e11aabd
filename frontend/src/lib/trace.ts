/** Trace export formats, as the Export menu offers them (docs/TRACE.md). */
export const traceFormats = [
  { id: 'tofu', label: 'Tofu trace (log and exact requests)' },
  { id: 'openai-messages', label: 'OpenAI messages' },
  { id: 'mini-swe-agent', label: 'mini-swe-agent trajectory' },
] as const

export type TraceFormat = (typeof traceFormats)[number]['id']

/** The file a trace is saved as: mini-swe-agent's loaders look for *.traj.json. */
export function traceFileName(session: string, format: TraceFormat): string {
  return format === 'mini-swe-agent' ? `${session}.traj.json` : `${session}.${format}.json`
}
