// The chat platforms a conversation can come from (SessionInfo.bridge, docs/BRIDGES.md), as
// the sidebar names them.
const names: Record<string, string> = { matrix: 'Matrix', telegram: 'Telegram', slack: 'Slack', feishu: 'Feishu' }

/** platformName is the platform's name for people; an unknown one shows as it is stored. */
export function platformName(platform: string): string {
  return names[platform] ?? platform
}
