import { describe, expect, it } from 'vitest'
import { MAX_BYTES, MAX_FILES, fromInput, readAll } from './skillfolder'

const file = (path: string, body: string): File => {
  const f = new File([body], path.split('/').pop()!)
  Object.defineProperty(f, 'webkitRelativePath', { value: path })
  return f
}

describe('skill folder', () => {
  it('reads a chosen folder with paths under it', async () => {
    const got = await readAll(fromInput([file('release/SKILL.md', '---\nname: release\n---'), file('release/scripts/tag.sh', 'x')]))
    expect(got.map((f) => f.path)).toEqual(['release/SKILL.md', 'release/scripts/tag.sh'])
    expect(new TextDecoder().decode(got[1].data)).toBe('x')
  })

  it('stops before reading a folder past the bounds', async () => {
    const never = async (): Promise<Uint8Array> => {
      throw new Error('read')
    }
    const many = Array.from({ length: MAX_FILES + 1 }, (_, i) => ({ path: `s/f${i}`, size: 1, read: never }))
    await expect(readAll(many)).rejects.toThrow(/files/)
    await expect(readAll([{ path: 's/big', size: MAX_BYTES + 1, read: never }])).rejects.toThrow(/MB/)
  })
})
