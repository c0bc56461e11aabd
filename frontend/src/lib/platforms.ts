// The chat platforms a conversation can come from (SessionInfo.bridge, docs/BRIDGES.md), as
// the sidebar names them.
import { t } from './i18n/index.svelte'

const names: Record<string, string> = { matrix: 'Matrix', telegram: 'Telegram', slack: 'Slack', feishu: 'Feishu' }

/** platformName is the platform's name for people; an unknown one shows as it is stored. */
export function platformName(platform: string): string {
  return names[platform] ?? platform
}

/** A bridge's settings (config.Bridge): the fields every bridge has, and its platform's own
 * (homeserver and user_id for Matrix, api for Telegram, those a new platform adds) by name. */
export interface BridgeConfig {
  platform: string
  on?: boolean
  allowed: string[] | null
  workspace?: string
  approve?: string
  tools?: string[] | null
  [field: string]: unknown
}

/** A bridge as BridgeService.List says it (app.BridgeInfo, bridge.Status). */
export interface BridgeInfo {
  name: string
  platform: string
  on: boolean
  has_token: boolean
  allowed: string[] | null
  error?: string
  config?: BridgeConfig
  status: {
    connected: boolean
    error?: string
    retry_at?: string
    since?: string
    running: number
  }
}

/** The kinds of state a bridge is in, for its colour in Settings. */
export type BridgeStateKind = 'off' | 'no-token' | 'failed' | 'connected' | 'offline' | 'connecting'

/** bridgeStatus is one line on how a bridge is doing, for Settings, and its kind: off, no
 * token, could not start, connected, or offline with why and when it tries again (now: the
 * current time, for the wait). */
export function bridgeStatus(b: BridgeInfo, now: number): { kind: BridgeStateKind; text: string } {
  if (!b.on) return { kind: 'off', text: t('bridgestatus.off') }
  if (!b.has_token) return { kind: 'no-token', text: t('bridgestatus.noToken', { name: b.name }) }
  if (b.error) return { kind: 'failed', text: t('bridgestatus.failed', { error: b.error }) }
  if (b.status.connected) {
    const n = b.status.running
    return { kind: 'connected', text: n ? t('bridgestatus.connectedAnswering', { n }) : t('bridgestatus.connected') }
  }
  if (b.status.error) {
    const wait = b.status.retry_at ? Math.max(0, Math.round((Date.parse(b.status.retry_at) - now) / 1000)) : 0
    const error = b.status.error
    return { kind: 'offline', text: wait > 0 ? t('bridgestatus.offlineRetryIn', { error, n: wait }) : t('bridgestatus.offlineRetryNow', { error }) }
  }
  return { kind: 'connecting', text: t('bridgestatus.connecting') }
}
