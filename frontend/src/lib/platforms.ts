// The chat platforms a conversation can come from (SessionInfo.bridge, docs/BRIDGES.md), as
// the sidebar names them.
const names: Record<string, string> = { matrix: 'Matrix', telegram: 'Telegram', slack: 'Slack', feishu: 'Feishu' }

/** platformName is the platform's name for people; an unknown one shows as it is stored. */
export function platformName(platform: string): string {
  return names[platform] ?? platform
}

/** A bridge as BridgeService.List says it (app.BridgeInfo, bridge.Status). */
export interface BridgeInfo {
  name: string
  platform: string
  on: boolean
  has_token: boolean
  allowed: string[] | null
  error?: string
  status: {
    connected: boolean
    error?: string
    retry_at?: string
    since?: string
    running: number
  }
}

/** bridgeState is one line on how a bridge is doing, for Settings: off, connected, or offline
 * with why and when it tries again (now: the current time, for the wait). */
export function bridgeState(b: BridgeInfo, now: number): string {
  if (!b.on) return 'Off'
  if (!b.has_token) return 'On, but no token is kept: tofu bridge token ' + b.name
  if (b.error) return 'Could not start: ' + b.error
  if (b.status.connected) {
    const turns = b.status.running ? ` · ${b.status.running} answering` : ''
    return 'Connected' + turns
  }
  if (b.status.error) {
    const wait = b.status.retry_at ? Math.max(0, Math.round((Date.parse(b.status.retry_at) - now) / 1000)) : 0
    return `Offline: ${b.status.error} · trying again in ${wait} s`
  }
  return 'Connecting…'
}
