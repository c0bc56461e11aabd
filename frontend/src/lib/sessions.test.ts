import { describe, expect, it } from 'vitest'
import { isStub, plainSnippet } from './sessions'
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

describe('plainSnippet', () => {
  it('drops Markdown marks from a search snippet (regression: issue 36 showed ** and ```)', () => {
    expect(plainSnippet('The **quokka** lives on\n```sh\nfind /rottnest\n```\nand *smiles*.')).toBe('The quokka lives on find /rottnest and smiles.')
    expect(plainSnippet('## Tides\n- twice a day, see [NOAA](https://noaa.gov)')).toBe('Tides twice a day, see NOAA')
    expect(plainSnippet('…cut in **half')).toBe('…cut in half')
    expect(plainSnippet('2 * 3 * 4 and snake_case_name')).toBe('2 * 3 * 4 and snake_case_name')
  })
})
