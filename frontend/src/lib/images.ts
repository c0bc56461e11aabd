/** A data: URL for an image a tool returned (Go sends []byte as base64); its type from its magic bytes. */
export function imageSrc(b64: string): string {
  const type = b64.startsWith('/9j/') ? 'jpeg' : b64.startsWith('R0lG') ? 'gif' : b64.startsWith('UklG') ? 'webp' : 'png'
  return `data:image/${type};base64,${b64}`
}

/** The images of a tool result, kept only when they are base64 strings. */
export function resultImages(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && /^[A-Za-z0-9+/=]+$/.test(x)) : []
}
