// The benchmark's reply (stream.measure.ts), also one of the texts the final-update tests stream
// (src/lib/markdown.final.test.ts): ~4,000 tokens of headings, prose with links, a nested list,
// Go and Python code, a table, inline and displayed math and a quote, no two blocks the same.

const TARGET_CHARS = 16_000 // ~4,000 tokens at ~4 characters a token

/** One section of the reply; n varies the text so no two blocks are the same. */
function section(n: number): string {
  return [
    `## Step ${n}: reading the results\n\n`,
    `The run ${n} wrote its figures to \`out/run-${n}.json\`; the **median** of the timings is what we compare, ` +
      `since a shared machine's load moves the mean. See [the notes](https://example.org/notes/${n}) for the setup.\n\n`,
    `1. Load the file and check its schema (version ${n}).\n2. Drop the warm-up runs.\n3. Compute the median and the spread:\n   - the interquartile range\n   - the worst run\n\n`,
    '```go\n' +
      `func median${n}(xs []float64) float64 {\n\tys := slices.Clone(xs)\n\tslices.Sort(ys)\n\tif len(ys)%2 == 1 {\n\t\treturn ys[len(ys)/2]\n\t}\n\treturn (ys[len(ys)/2-1] + ys[len(ys)/2]) / 2\n}\n` +
      '```\n\n',
    `| run | median (ms) | worst (ms) | note |\n|---|---:|---:|---|\n| ${n}a | ${10 + n}.4 | ${20 + n}.1 | warm |\n| ${n}b | ${11 + n}.0 | ${25 + n}.7 | cold cache |\n| ${n}c | ${9 + n}.8 | ${19 + n}.3 | — |\n\n`,
    `The spread follows $\\sigma_{${n}} = \\sqrt{\\frac{1}{N}\\sum_{i=1}^{N} (x_i - \\mu)^2}$, and the confidence interval is\n\n` +
      `$$\n\\mu \\pm z_{0.975} \\frac{\\sigma}{\\sqrt{N}}, \\quad N = ${n + 8}\n$$\n\n`,
    '```python\n' + `def summarize_${n}(rows):\n    out = {}\n    for r in rows:\n        out.setdefault(r["run"], []).append(r["ms"])\n    return {k: sorted(v)[len(v) // 2] for k, v in out.items()}\n` + '```\n\n',
    `> Note ${n}: a run slower than twice the median is logged, not dropped.\n\n`,
  ].join('')
}

export function reply(): string {
  let text = 'Here is how the benchmark results are read, step by step.\n\n'
  for (let n = 1; text.length < TARGET_CHARS; n++) text += section(n)
  return text + 'That is all: the table above is the one to keep.\n'
}
