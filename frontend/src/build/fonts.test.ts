// @vitest-environment node
// The UI font is Inter, shipped with the app, then the desktop's own UI font and the generic
// family for what Inter lacks (CJK, symbols); the monospace stack is the system's. Under
// WebKitGTK every system family a stack names is a fontconfig lookup before the first paint, once
// for each size and weight on the screen (about 2 ms each on a 2-core laptop with Debian's
// fontconfig rules: Skia walks the whole alias list of the name), ~40 of them on the first screen
// when the UI font was system-ui; a font the page ships is read from its own file instead. A
// stack of nine named system fonts drew the window's first frame with its data about 0.2 s later
// (docs/PERFORMANCE.md).
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const css = readFileSync(resolve(__dirname, '../app.css'), 'utf8')
const stack = (name: string) => new RegExp(`--${name}:\\s*([^;]+);`).exec(css)?.[1].split(',').map((f) => f.trim().replace(/'/g, ''))

describe('the UI font stacks', () => {
  it('are the shipped font, then the system font and a generic family', () => {
    expect(stack('font')).toEqual(['Inter Variable', 'system-ui', 'sans-serif'])
    expect(stack('mono')).toEqual(['ui-monospace', 'monospace'])
  })

  it('name the family the page declares', () => {
    const main = readFileSync(resolve(__dirname, '../main.ts'), 'utf8')
    const faces = /^import '(@fontsource-variable\/inter\/[\w.-]+\.css)'$/m.exec(main)?.[1]
    expect(faces, 'main.ts imports the font faces').toBeTruthy()
    const declared = readFileSync(resolve(__dirname, '../../node_modules', faces!), 'utf8')
    const families = new Set([...declared.matchAll(/font-family:\s*'([^']+)'/g)].map((m) => m[1]))
    expect([...families]).toEqual([stack('font')![0]])
    // Every weight the stylesheets use (550 and 650 among them) is drawn, not rounded to a file.
    expect(declared).toMatch(/font-weight:\s*100 900/)
  })
})
