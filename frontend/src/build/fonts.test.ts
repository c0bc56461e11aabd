// @vitest-environment node
// The UI font is the desktop's own (system-ui), then the generic family. Under WebKitGTK every
// family of the stack the machine lacks costs fontconfig matching before the first paint: a
// stack of nine named fonts (Segoe UI, Roboto, Ubuntu, Cantarell, …) drew the window's first
// frame with its data about 0.2 s later on a 2-core laptop (docs/PERFORMANCE.md).
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

describe('the UI font stack', () => {
  it('is system-ui then a generic family, nothing the engine must look for', () => {
    const css = readFileSync(resolve(__dirname, '../app.css'), 'utf8')
    const stack = /--font:\s*([^;]+);/.exec(css)?.[1]
    expect(stack?.split(',').map((f) => f.trim())).toEqual(['system-ui', 'sans-serif'])
  })
})
