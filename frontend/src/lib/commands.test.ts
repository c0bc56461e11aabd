import { describe, expect, it } from 'vitest'
import { commandMatches, costLine, parseCommand, resolveModel } from './commands'
import { sumCalls } from './tokens'

describe('parseCommand', () => {
  it('reads the built-in commands and their argument', () => {
    expect(parseCommand('/compact keep the file names\nand the errors')).toEqual({ name: 'compact', arg: 'keep the file names\nand the errors' })
    expect(parseCommand('/compact')).toEqual({ name: 'compact', arg: '' })
    expect(parseCommand(' /MODEL qwen3:8b ')).toEqual({ name: 'model', arg: 'qwen3:8b' })
    expect(parseCommand('/clear')).toEqual({ name: 'clear', arg: '' })
    expect(parseCommand('/cost')).toEqual({ name: 'cost', arg: '' })
  })
  it('leaves MCP prompts and plain text alone', () => {
    expect(parseCommand('/files:summarize a.txt')).toBeNull()
    expect(parseCommand('what does /usr/bin hold?')).toBeNull()
    expect(parseCommand('/usr/bin/env')).toBeNull()
  })
  it('refuses an unknown command and extra words, naming the commands', () => {
    expect(parseCommand('/help')).toEqual({ error: 'Unknown command /help: the commands are /compact, /model, /clear, /cost.' })
    expect(parseCommand('/clear everything')).toEqual({ error: '/clear takes no argument.' })
  })
})

describe('commandMatches', () => {
  it('offers the commands by prefix while the name is typed', () => {
    expect(commandMatches('/').map((c) => c.name)).toEqual(['compact', 'model', 'clear', 'cost'])
    expect(commandMatches('/c').map((c) => c.name)).toEqual(['compact', 'clear', 'cost'])
    expect(commandMatches('/co').map((c) => c.name)).toEqual(['compact', 'cost'])
    expect(commandMatches('/compact ')).toEqual([])
    expect(commandMatches('hello /c')).toEqual([])
    expect(commandMatches('/x')).toEqual([])
  })
})

describe('resolveModel', () => {
  const models = ['qwen3:8b', 'qwen3:32b', 'llama3.2:latest', 'gpt-oss:20b']
  it('takes the exact name, the name without its tag, or the one name containing it', () => {
    expect(resolveModel('qwen3:8b', models)).toEqual({ model: 'qwen3:8b' })
    expect(resolveModel('llama3.2', models)).toEqual({ model: 'llama3.2:latest' })
    expect(resolveModel('gpt', models)).toEqual({ model: 'gpt-oss:20b' })
  })
  it('says when the name is ambiguous or missing', () => {
    expect(resolveModel('qwen3', models)).toEqual({ error: '"qwen3" matches 2 models: qwen3:8b, qwen3:32b.' })
    expect(resolveModel('mistral', models)).toEqual({ error: 'No model "mistral" here. Installed: qwen3:8b, qwen3:32b, llama3.2:latest, gpt-oss:20b.' })
  })
})

describe('costLine', () => {
  const row = (input: number, cached: number, output: number, cost?: number) => ({
    seq: 1, model: 'm', input, cached, output, reasoning: 0, localInput: 0, window: 0, durationMs: 0, cost,
  })
  it('sums the calls, with the cached share and the cost', () => {
    expect(costLine(sumCalls([]))).toBe('No model calls yet in this conversation.')
    expect(costLine(sumCalls([row(1000, 500, 20, 0.01), row(3000, 2500, 80, 0.02)] as never))).toBe(
      '2 model calls · 4,000 tokens in (75% cached) · 100 out · cost $0.03',
    )
    expect(costLine(sumCalls([row(1200, 0, 30)] as never))).toBe('1 model call · 1,200 tokens in · 30 out · no cost: the models are not priced (local)')
    expect(costLine(sumCalls([row(100, 0, 1, 0.5), row(100, 0, 1)] as never))).toBe(
      '2 model calls · 200 tokens in · 2 out · cost $0.5* (* some calls were not priced)',
    )
  })
})
