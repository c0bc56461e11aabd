// Whether highlight.js has loaded (highlight.ts): rendered Markdown depends on it, so code shown
// plain before it arrived renders again highlighted.
export const codeState = $state({ ready: false })
