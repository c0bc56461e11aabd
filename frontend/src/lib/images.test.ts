import { describe, expect, it } from 'vitest'
import { imageSrc, resultImages } from './images'

describe('tool result images', () => {
  it('types a data URL by its magic bytes', () => {
    expect(imageSrc('iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=')
    expect(imageSrc('/9j/4AAQ')).toBe('data:image/jpeg;base64,/9j/4AAQ')
  })
  it('keeps only base64 strings, so nothing else becomes a URL', () => {
    expect(resultImages(['iVBORw0KGgo=', 'javascript:alert(1)', 3, null])).toEqual(['iVBORw0KGgo='])
    expect(resultImages(undefined)).toEqual([])
  })
})
