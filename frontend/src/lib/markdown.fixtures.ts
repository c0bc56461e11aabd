// Markdown the streaming tests cut at many places (markdown.stream.test.ts, markdown.final.test.ts):
// prose, fences, lists, tables and quotes, raw HTML, an unclosed fence, and a mix of them; and how
// they cut them.

// A small seeded generator, so a failure can be reproduced.
export function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Cuts text into chunks of 1 to max characters at random places. */
export function chunks(text: string, seed: number, max = 12): string[] {
  const next = rng(seed)
  const out: string[] = []
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(next() * max)
    out.push(text.slice(i, i + n))
    i += n
  }
  return out
}

export const STREAM_DOCS: Record<string, string> = {
  prose: 'First paragraph with *emphasis* and `code`.\n\nSecond one, a [link](https://example.org) and **bold**.\n\n# Heading\n\nSetext heading\n---\n\nLast line.\n',
  fences:
  'Here is Go:\n\n```go\nfunc main() {\n\tfmt.Println("hi")\n}\n```\n\nAnd a tilde fence with a blank line inside:\n\n~~~python\ndef f():\n\n    return 1\n~~~\n\n````\nnested ``` inside\n````\n\nAfter.\n',
  lists:
  '- one\n- two\n\n- loose three\n\n  continued paragraph\n\n1. first\n2. second\n   - nested\n   - more\n\nText after the list.\n\n* star\n+ plus\n\n    indented code\n\n    more code\n\nend\n',
  tables: 'Intro\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | `4` |\n\nBetween.\n\nx | y\n--|--\np | q\n\n> quoted\nlazy line\n\n> second quote\n',
  script:
  'Before\n\n<script>window.__pwned = 1</script>\n\ninline <script>alert(1)</script> and <img src=x onerror="window.__pwned=2"> and [x](javascript:alert(1))\n\n<div onclick="window.__pwned=3">\n\nafter div\n',
  unclosed: 'Start\n\n```js\nconst a = 1\nconst b = 2\n',
  mixed:
  '## Plan\n\n1. Read `main.go`\n2. Run:\n\n   ```bash\n   go test ./...\n   ```\n\n3. Done\n\n---\n\n| k | v |\n|---|---|\n| a | 1 |\n\n```\nplain\n```\nTrailing paragraph directly after a fence.\n',
}

/** Pieces the random documents are made of, joined by nothing, one or two blank lines. */
export const STREAM_PIECES = [
  'A plain paragraph\nthat wraps.\n',
  'Steps:\n1. one\n2. two\n',
  '- a\n- b\n\n  more of b\n',
  '- [ ] task\n- [x] done\n',
  '* x\n\n* y\n',
  '1.5 apples, not a list\n',
  'Title\n---\n',
  'Title two\n===\n',
  '## ATX heading ##\n',
  '***\n',
  '> quote\ncontinued\n> > nested\n',
  '| h1 | h2 |\n| --- | --- |\n| c1 | c2 |\n',
  'Intro line\n| h | i |\n|---|---|\n| 1 | 2 |\n',
  '```js\nconst x = `y`\n\nlet z = 1\n```\n',
  '~~~\n```\nnot closed by backticks\n~~~\n',
  '    indented code\n\n    still code\n',
  'Text with <b>bold</b> and &amp; and a line  \nbreak.\n',
  'Auto link https://example.org and ~~strike~~.\n',
]
