import { describe, expect, it, vi } from 'vitest'
import { attachFile, droppedFiles, formatTokens, onlyPDFs, pastedFiles, thumbnail, toBase64 } from './attachfiles'
import { apply, emptyTranscript, project, withEvents, type UserItem } from './transcript'
import type { Attachment } from './types'

// A DataTransfer as the browser hands one to paste and drop handlers (jsdom has none).
function transfer(files: File[], kinds: ('file' | 'string')[] = files.map(() => 'file')): DataTransfer {
  const items = kinds.map((kind, i) => ({ kind, type: files[i]?.type ?? 'text/plain', getAsFile: () => (kind === 'file' ? files[i]! : null) }))
  return { files: kind0(files, kinds), items } as unknown as DataTransfer
}
const kind0 = (files: File[], kinds: string[]) => files.filter((_, i) => kinds[i] === 'file')

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])

describe('pasting a screenshot', () => {
  it('takes the clipboard image and names it after the time', () => {
    const shot = new File([png], 'image.png', { type: 'image/png' })
    const got = pastedFiles(transfer([shot]), new Date(2026, 11, 6, 14, 5, 9))
    expect(got.map((f) => [f.name, f.type, f.size])).toEqual([['screenshot-20261206-140509.png', 'image/png', png.length]])
  })
  it('keeps a named file as it is, and leaves text to paste as text', () => {
    const f = new File(['a,b\n1,2\n'], 'data.csv', { type: 'text/csv' })
    expect(pastedFiles(transfer([f])).map((x) => x.name)).toEqual(['data.csv'])
    expect(pastedFiles(transfer([new File(['x'], 'x')], ['string']))).toEqual([])
    expect(pastedFiles(null)).toEqual([])
  })
})

describe('dropping files', () => {
  it('gives the dropped files, none for dragged text', () => {
    const a = new File(['x'], 'a.txt', { type: 'text/plain' })
    expect(droppedFiles(transfer([a]))).toEqual([a])
    expect(droppedFiles(undefined)).toEqual([])
  })
  it('tells a PDF-only drag (the library opens it) from one to attach', () => {
    const pdf = new File(['%PDF'], 'p.pdf', { type: 'application/pdf' })
    const img = new File([png], 's.png', { type: 'image/png' })
    expect(onlyPDFs(transfer([pdf]))).toBe(true)
    expect(onlyPDFs(transfer([pdf, img]))).toBe(false)
    expect(onlyPDFs(transfer([img]))).toBe(false)
    expect(onlyPDFs(transfer([]))).toBe(false)
  })
})

describe('reading an attachment', () => {
  it('sends the bytes as base64 with the name, and gives back what Go made of them', async () => {
    const made: Attachment = { kind: 'image', uri: 's.png', name: 's.png', text: '', size: png.length, blob: 'part/ab', tokens: 765 }
    const attach = vi.fn(async () => made)
    const got = await attachFile(new File([png], 's.png', { type: 'image/png' }), attach)
    expect(got).toBe(made)
    expect(attach).toHaveBeenCalledWith('s.png', 'iVBORw0KGgoAAAAN')
    expect(atob(toBase64(new Uint8Array(70_000).fill(65).buffer))).toBe('A'.repeat(70_000))
  })
  it('asks for a thumbnail once per blob, and again after a failure', async () => {
    const load = vi.fn(async (b: string) => (b === 'part/bad' ? Promise.reject(new Error('gone')) : `data:image/png;base64,${b}`))
    expect(await thumbnail('part/1', load)).toBe('data:image/png;base64,part/1')
    await thumbnail('part/1', load)
    expect(load).toHaveBeenCalledTimes(1)
    await expect(thumbnail('part/bad', load)).rejects.toThrow('gone')
    await expect(thumbnail('part/bad', load)).rejects.toThrow('gone')
    expect(load).toHaveBeenCalledTimes(3)
  })
  it('says tokens as the chip shows them', () => {
    expect(formatTokens(840)).toBe('840 tokens')
    expect(formatTokens(12_400)).toBe('12k tokens')
    expect(formatTokens(1_234)).toBe('1.2k tokens')
  })
})

describe('attachments in the transcript', () => {
  it('keeps the blob, tokens and clipping of images and files, which survive a reload of the log', () => {
    const state = apply(withEvents(emptyTranscript, [{
      session: 's', seq: 1, time: '2026-12-06T14:00:00Z', type: 'user',
      data: { text: 'look', attachments: [
        { kind: 'image', uri: 'shot.png', name: 'shot.png', mime_type: 'image/png', text: '', size: 2048, blob: 'part/aa', tokens: 765 },
        { kind: 'file', uri: 'log.txt', name: 'log.txt', text: '1\tx', size: 220_000, blob: 'part/bb', tokens: 25_000, clipped: true },
      ] },
    }]), { kind: 'stream', state: 'ended' })
    const u = project(state).find((i): i is UserItem => i.kind === 'user')!
    expect(u.attachments).toEqual([
      { kind: 'image', server: '', uri: 'shot.png', name: 'shot.png', mimeType: 'image/png', size: 2048, blob: 'part/aa', tokens: 765 },
      { kind: 'file', server: '', uri: 'log.txt', name: 'log.txt', mimeType: '', size: 220_000, blob: 'part/bb', tokens: 25_000, clipped: true },
    ])
  })
})
