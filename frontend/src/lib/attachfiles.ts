// Pure helpers for images and files attached in the composer: picked, dropped or pasted. The
// bytes go to ChatService.Attach (base64 over the bridge), which reads them as the tools read
// files and answers the attachment the message carries.
import { t } from './i18n/index.svelte'
import type { Attachment } from './types'

/** Bytes as base64 (Go's []byte in JSON), in slices so a large file does not blow the stack. */
export function toBase64(buf: ArrayBuffer): string {
  const bytes = new Uint8Array(buf)
  let bin = ''
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(bin)
}

/** The files a drop carries (none for dragged text or links). */
export function droppedFiles(dt: DataTransfer | null | undefined): File[] {
  return dt?.files ? Array.from(dt.files) : []
}

/** Whether a drag holds only PDFs (the window opens those in the library; the rest attach).
 * During a drag the browser tells the types, not the files. */
export function onlyPDFs(dt: DataTransfer | null | undefined): boolean {
  const items = dt?.items ? Array.from(dt.items).filter((i) => i.kind === 'file') : []
  return items.length > 0 && items.every((i) => i.type === 'application/pdf')
}

/** The files pasted (a screenshot on the clipboard is one image). A pasted image the
 * clipboard does not name ("image.png") is named after the time, so two stay apart. */
export function pastedFiles(cd: DataTransfer | null | undefined, now = new Date()): File[] {
  const out: File[] = []
  for (const item of cd?.items ? Array.from(cd.items) : []) {
    if (item.kind !== 'file') continue
    const f = item.getAsFile()
    if (!f) continue
    if (f.type.startsWith('image/') && (!f.name || /^image\.\w+$/.test(f.name))) {
      const ext = f.type.slice('image/'.length).replace('jpeg', 'jpg')
      out.push(new File([f], `screenshot-${stamp(now)}.${ext}`, { type: f.type }))
    } else out.push(f)
  }
  return out
}

function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`
}

/** Reads a file and has Go make it an attachment (attach: api.chat.attach). */
export async function attachFile(f: File, attach: (name: string, data: string) => Promise<Attachment>): Promise<Attachment> {
  return attach(f.name || 'attachment', toBase64(await f.arrayBuffer()))
}

/** Tokens as the chip says them: 840 tokens, 12.4k tokens. */
export function formatTokens(n: number): string {
  return t('tokens.outTokens', { n: n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k` })
}

// Thumbnails of image attachments, by blob (data: URLs from ChatService.AttachmentImage):
// kept for the page's life so a transcript redrawn does not ask again.
const thumbs = new Map<string, Promise<string>>()

/** The data: URL of an image attachment's blob, asked once (load: api.chat.attachmentImage). */
export function thumbnail(blob: string, load: (blob: string) => Promise<string>): Promise<string> {
  let p = thumbs.get(blob)
  if (!p) {
    p = load(blob)
    p.catch(() => thumbs.delete(blob)) // asked again next time
    thumbs.set(blob, p)
  }
  return p
}
