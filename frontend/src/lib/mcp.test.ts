import { describe, expect, it } from 'vitest'
import { argsHint, endpoint, isPromptCommand, parsePasted, promptMatches, statusLine } from './mcp'
import type { McpServer } from './types'

const base: McpServer = { name: 'fs', status: 'connected', transport: 'stdio', tools: [], config: { command: 'npx', args: ['-y', 'x'] } }

describe('statusLine', () => {
  it('counts the tools switched on', () => {
    const s = { ...base, server: 'secure-filesystem-server 0.2.0', tools: [{ name: 'a', description: '' }, { name: 'b', description: '', disabled: true }] }
    expect(statusLine(s)).toBe('Connected to secure-filesystem-server 0.2.0 · 1 of 2 tools on')
  })
  it('says a crashed server restarts', () => {
    expect(statusLine({ ...base, status: 'connecting', restarts: 2 })).toBe('Restarting (2 restarts)')
    expect(statusLine({ ...base, status: 'connecting' })).toBe('Starting…')
  })
})

describe('endpoint', () => {
  it('shows the command line or the URL', () => {
    expect(endpoint(base.config)).toBe('npx -y x')
    expect(endpoint({ type: 'sse', url: 'http://h/sse' })).toBe('http://h/sse (SSE)')
  })
})

describe('parsePasted', () => {
  it('reads Claude Desktop’s shape', () => {
    const r = parsePasted('{"mcpServers":{"memory":{"command":"npx","args":["-y","@modelcontextprotocol/server-memory"]}}}')
    expect(r).toEqual({ servers: [{ name: 'memory', server: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } }] })
  })
  it('reads one server under the name given', () => {
    expect(parsePasted('{"url":"https://x/mcp"}', 'docs')).toEqual({ servers: [{ name: 'docs', server: { url: 'https://x/mcp' } }] })
    expect(parsePasted('{"url":"https://x/mcp"}', '')).toHaveProperty('error')
  })
  it('says what is wrong', () => {
    expect(parsePasted('{')).toHaveProperty('error')
    expect(parsePasted('{"mcpServers":{"a b":{"command":"x"}}}')).toEqual({ error: '“a b” cannot name a server: use letters, digits, - and _.' })
    expect(parsePasted('{"mcpServers":{"x":{"args":[]}}}')).toEqual({ error: '“x” has neither a command nor a url.' })
  })
})

describe('prompt commands', () => {
  const prompts = [
    { server: 'everything', name: 'args-prompt', arguments: [{ name: 'city', required: true }, { name: 'state' }] },
    { server: 'everything', name: 'simple-prompt' },
    { server: 'git', name: 'commit-message', title: 'Commit message' },
  ]
  it('completes what was typed after /', () => {
    expect(promptMatches('/', prompts)).toHaveLength(3)
    expect(promptMatches('/args', prompts).map((p) => p.name)).toEqual(['args-prompt'])
    expect(promptMatches('/commit', prompts).map((p) => p.name)).toEqual(['commit-message'])
    expect(promptMatches('/args-prompt Paris', prompts)).toEqual([])
    expect(promptMatches('hello /', prompts)).toEqual([])
  })
  it('knows a command from a message', () => {
    expect(isPromptCommand('/everything:args-prompt city=Paris')).toBe(true)
    expect(isPromptCommand('/usr/bin is a path')).toBe(false)
    expect(isPromptCommand('what is 3/4')).toBe(false)
  })
  it('shows the arguments', () => {
    expect(argsHint(prompts[0]!)).toBe('city=… [state=…]')
  })
})
