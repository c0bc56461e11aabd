import { describe, expect, it } from 'vitest'
import { isStub } from './sessions'
import type { SessionInfo } from './types'

const s = (over: Partial<SessionInfo>): SessionInfo => ({ id: 'a', title: 'New conversation', created: '', updated: '', events: 0, ...over })

describe('isStub', () => {
  it('is an untouched New conversation only', () => {
    expect(isStub(s({}))).toBe(true)
    expect(isStub(s({ events: 1 }))).toBe(false)
    expect(isStub(s({ title: 'Plans' }))).toBe(false)
    expect(isStub(s({ workspace: '/w' }))).toBe(false)
    expect(isStub(s({ paper: 'p', purpose: 'report' }))).toBe(false)
    expect(isStub(null)).toBe(false)
  })
})
