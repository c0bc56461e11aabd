import { describe, expect, it } from 'vitest'
import { byServer, formatSize, resourceMatches } from './attach'
import { apply, emptyTranscript, project, withEvents, type UserItem } from './transcript'
import type { McpResource } from './types'

const list: McpResource[] = [
  { server: 'everything', uri: 'demo://resource/static/document/features.md', name: 'features.md', mime_type: 'text/markdown' },
  { server: 'everything', uri: 'demo://resource/dynamic/text/{resourceId}', name: 'Dynamic Text Resource', template: true, variables: ['resourceId'] },
  { server: 'fs', uri: 'file:///notes.txt', name: 'notes.txt', description: 'my notes' },
]

describe('attaching MCP resources', () => {
  it('filters by every word, over names, URIs, descriptions and servers', () => {
    expect(resourceMatches(list, '').length).toBe(3)
    expect(resourceMatches(list, 'features').map((r) => r.name)).toEqual(['features.md'])
    expect(resourceMatches(list, 'everything dynamic').map((r) => r.name)).toEqual(['Dynamic Text Resource'])
    expect(resourceMatches(list, 'NOTES mine')).toEqual([])
    expect(resourceMatches(list, 'my notes').map((r) => r.server)).toEqual(['fs'])
  })

  it('groups by server', () => {
    expect(byServer(list).map((g) => [g.server, g.resources.length])).toEqual([['everything', 2], ['fs', 1]])
  })

  it('says sizes', () => {
    expect(formatSize(812)).toBe('812 B')
    expect(formatSize(4200)).toBe('4.2 KB')
    expect(formatSize(52_000)).toBe('52 KB')
    expect(formatSize(1_300_000)).toBe('1.3 MB')
  })

  it('shows a sent message\'s attachments as chips, without their text', () => {
    const state = apply(withEvents(emptyTranscript, [{
      session: 's', seq: 1, time: '2025-01-01T00:00:00Z', type: 'user',
      data: { text: 'summarize', attachments: [{ kind: 'mcp_resource', server: 'everything', uri: 'demo://x.md', name: 'x.md', mime_type: 'text/markdown', text: '# X', size: 3 }] },
    }]), { kind: 'stream', state: 'ended' })
    const u = project(state).find((i): i is UserItem => i.kind === 'user')!
    expect(u.text).toBe('summarize')
    expect(u.attachments).toEqual([{ kind: 'mcp_resource', server: 'everything', uri: 'demo://x.md', name: 'x.md', mimeType: 'text/markdown', size: 3 }])
  })
})
