// @vitest-environment node
// The UI fonts are the desktop's own (system-ui, ui-monospace), then the generic family. Under
// WebKitGTK every family of a stack the machine lacks is a fontconfig lookup before the first
// paint, once for each size and weight on the screen (about 2 ms each on a 2-core laptop with
// Debian's fontconfig rules: Skia walks the whole alias list of the name). A stack of nine named
// fonts (Segoe UI, Roboto, Ubuntu, Cantarell, …) drew the window's first frame with its data
// about 0.2 s later; the monospace stack of eight names cost 15 lookups on the first screen's
// three key hints alone (docs/PERFORMANCE.md).
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const css = readFileSync(resolve(__dirname, '../app.css'), 'utf8')
const stack = (name: string) => new RegExp(`--${name}:\\s*([^;]+);`).exec(css)?.[1].split(',').map((f) => f.trim())

describe('the UI font stacks', () => {
  it('are the system font then a generic family, nothing the engine must look for', () => {
    expect(stack('font')).toEqual(['system-ui', 'sans-serif'])
    expect(stack('mono')).toEqual(['ui-monospace', 'monospace'])
  })
})
