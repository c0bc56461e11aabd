// Reading a skill folder in the window: dropped (a FileSystemDirectoryEntry) or chosen with a
// folder input (files with webkitRelativePath). The Go side checks everything again
// (backend/skills.InstallFiles); these bounds only stop reading a huge folder early.

/** The install's bounds (backend/skills: maxInstallFiles, maxInstallBytes). */
export const MAX_FILES = 500
export const MAX_BYTES = 50 << 20

export type FolderFile = { path: string; data: Uint8Array }

/** A file of the folder before it is read: its path inside the folder, and a reader. */
export type PendingFile = { path: string; size: number; read: () => Promise<Uint8Array> }

/** Checks the bounds, then reads the files. */
export async function readAll(files: PendingFile[]): Promise<FolderFile[]> {
  if (files.length > MAX_FILES) throw new Error(`the folder holds ${files.length} files; a skill may hold ${MAX_FILES}`)
  const total = files.reduce((n, f) => n + f.size, 0)
  if (total > MAX_BYTES) throw new Error(`the skill is over ${MAX_BYTES >> 20} MB`)
  return Promise.all(files.map(async (f) => ({ path: f.path, data: await f.read() })))
}

/** The files a folder input gave (each with its path under the chosen folder). */
export function fromInput(list: FileList | File[]): PendingFile[] {
  return Array.from(list).map((f) => ({
    path: (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name,
    size: f.size,
    read: async () => new Uint8Array(await f.arrayBuffer()),
  }))
}

/** The files under a dropped folder, walked breadth-first; stops past MAX_FILES. */
export async function fromEntry(root: FileSystemDirectoryEntry): Promise<PendingFile[]> {
  const out: PendingFile[] = []
  const dirs: FileSystemDirectoryEntry[] = [root]
  while (dirs.length > 0 && out.length <= MAX_FILES) {
    const dir = dirs.shift()!
    for (const e of await entries(dir)) {
      if (e.isDirectory) dirs.push(e as FileSystemDirectoryEntry)
      else if (e.isFile) {
        const file = await new Promise<File>((ok, fail) => (e as FileSystemFileEntry).file(ok, fail))
        out.push({ path: e.fullPath.replace(/^\//, ''), size: file.size, read: async () => new Uint8Array(await file.arrayBuffer()) })
      }
    }
  }
  return out
}

/** All entries of a directory (readEntries answers in batches until an empty one). */
async function entries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader()
  const all: FileSystemEntry[] = []
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((ok, fail) => reader.readEntries(ok, fail))
    if (batch.length === 0) return all
    all.push(...batch)
  }
}
