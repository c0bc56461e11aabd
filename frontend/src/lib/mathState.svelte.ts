// Whether KaTeX has loaded (math.ts): rendered Markdown depends on it, so messages that showed a
// formula's source before it arrived render again with the typeset formula.
export const mathState = $state({ ready: false })
