import { describe, expect, it } from 'vitest'
import { traceFileName, traceFormats } from './trace'

describe('trace export', () => {
  it('names files so replay tools find them', () => {
    expect(traceFileName('s1', 'mini-swe-agent')).toBe('s1.traj.json')
    expect(traceFileName('s1', 'tofu')).toBe('s1.tofu.json')
    expect(traceFileName('s1', 'openai-messages')).toBe('s1.openai-messages.json')
  })
  it('offers the Go side formats, tofu first', () => {
    expect(traceFormats.map((f) => f.id)).toEqual(['tofu', 'openai-messages', 'mini-swe-agent'])
  })
})
