// Files dropped on the window (outside the composer) for the composer to attach: App hands
// them over here, the composer takes them when the tick moves.
export const dropped = $state({ files: [] as File[], tick: 0 })

/** Hands files to the composer. */
export function dropForComposer(files: File[]) {
  dropped.files = files
  dropped.tick++
}
