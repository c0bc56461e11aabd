// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { loadCatalogue, setLocale } from './i18n/index.svelte'
import { checkTime, cost, dayLabel, dayList, proseLine, scheduleLine, summaryParts, tokens, usageRows, type DayReport } from './myday'

const report = (over: Partial<DayReport>): DayReport => ({
  date: '2026-03-10', generated: '', sessions: [], open: [], todos: [], papers: [], models: [],
  total: { model: 'total', calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 }, summary: '', prose: 'extractive', ...over,
})

describe('My Day', () => {
  it('labels days relative to today', () => {
    expect(dayLabel('2026-03-10', '2026-03-10')).toBe('Today')
    expect(dayLabel('2026-03-09', '2026-03-10')).toBe('Yesterday')
    expect(dayLabel('2026-03-01', '2026-03-10')).toBe('Sun 1 Mar 2026')
    expect(dayLabel('2026-02-28', '2026-03-01')).toBe('Yesterday')
  })
  it('lists today first, then stored days newest first, once each', () => {
    expect(dayList(['2026-03-08', '2026-03-10', '2026-03-09'], '2026-03-10')).toEqual(['2026-03-10', '2026-03-09', '2026-03-08'])
    expect(dayList(null, '2026-03-10')).toEqual(['2026-03-10'])
  })
  it('writes tokens and costs short', () => {
    expect([tokens(950), tokens(5250), tokens(123_400), tokens(4_100_000)]).toEqual(['950', '5.3k', '123k', '4.1M'])
    expect([cost(0), cost(0.0125), cost(3.456)]).toEqual(['free', '$0.01', '$3.46'])
    expect(cost(0.0042)).toBe('$0.0042')
  })
  it('adds a total row only with several models', () => {
    const one = report({ models: [{ model: 'a', calls: 1, input_tokens: 1, output_tokens: 1, cost_usd: 0 }] })
    expect(usageRows(one).map((r) => r.model)).toEqual(['a'])
    const two = report({ models: [...one.models!, { model: 'b', calls: 1, input_tokens: 1, output_tokens: 1, cost_usd: 0 }] })
    expect(usageRows(two).map((r) => r.model)).toEqual(['a', 'b', 'Total'])
  })
  it('says who wrote the prose', () => {
    expect(proseLine(report({ prose: 'model', model: 'qwen3:1.7b' }))).toContain('qwen3:1.7b')
    expect(proseLine(report({ prose_note: 'the cheap model failed' }))).toBe('the cheap model failed')
    expect(proseLine(report({}))).toContain('no cheap model')
  })
  it('checks the daily time as typed', () => {
    expect(['', '18:30', '00:00', '23:59', ' 07:05 '].map(checkTime)).toEqual(['', '', '', '', ''])
    for (const bad of ['24:00', '7:5', '18h30', '18:60']) expect(checkTime(bad)).toContain('18:30')
  })
  it('says when the report is written and what happened to the last time', () => {
    const today = '2026-03-12'
    const iso = (d: number, h: number, m = 0) => new Date(2026, 2, d, h, m).toISOString()
    expect(scheduleLine({ at: '' }, today)).toContain('only when you ask')
    expect(scheduleLine({ at: '18:00', next: iso(12, 18) }, today)).toBe('Written every day at 18:00 while Tofu is open · next today 18:00.')
    expect(scheduleLine({ at: '07:30', next: iso(13, 7, 30) }, today)).toContain('next tomorrow 07:30.')
    expect(scheduleLine({ at: '18:00', next: iso(12, 18), last: { due: iso(11, 18), outcome: 'ok' } }, today)).toContain('Last written Yesterday 18:00.')
    const late = scheduleLine({ at: '18:00', next: iso(12, 18), last: { due: iso(11, 18), started: iso(12, 9, 2), outcome: 'ok', late: true } }, today)
    expect(late).toContain('Yesterday 18:00 was missed (Tofu was closed); written at the next start, today 09:02.')
    expect(scheduleLine({ at: '18:00', last: { due: iso(10, 18), outcome: 'missed', missed: 2 } }, today)).toContain('with 1 more after it')
  })
})

describe('summaryParts', () => {
  it('makes the "- " lines a list and says a title once (regression, issue 36)', () => {
    const s = '3 conversations; 12,000 tokens over 9 model calls.\n- Tides: Tides\n- Quokkas: where do quokkas live\n- Fix the spelling…: Fix the spelling in notes.txt\n- and 2 more'
    expect(summaryParts(s)).toEqual({
      lead: ['3 conversations; 12,000 tokens over 9 model calls.'],
      items: ['Tides', 'Quokkas: where do quokkas live', 'Fix the spelling in notes.txt', 'and 2 more'],
    })
    expect(summaryParts('A quiet day.')).toEqual({ lead: ['A quiet day.'], items: [] })
  })
})

describe('My Day in Chinese and Japanese', () => {
  it('says the days, the cost and the schedule in the UI language, dates by Intl', async () => {
    const today = '2026-03-12'
    const iso = (d: number, h: number, m = 0) => new Date(2026, 2, d, h, m).toISOString()
    setLocale('zh')
    await loadCatalogue('zh')
    expect(dayLabel('2026-03-12', today)).toBe('今天')
    expect(dayLabel('2026-03-11', today)).toBe('昨天')
    const zhDate = dayLabel('2026-03-01', today)
    expect(zhDate).toContain('2026年3月1日')
    expect(zhDate).toContain('周日')
    expect(cost(0)).toBe('免费')
    expect(scheduleLine({ at: '07:30', next: iso(13, 7, 30) }, today)).toBe('Tofu 打开时每天 07:30 撰写 · 下次 明天 07:30。')
    expect(scheduleLine({ at: '18:00', last: { due: iso(10, 18), outcome: 'missed', missed: 2 } }, today)).toContain('之后又错过 1 次。')
    setLocale('ja')
    await loadCatalogue('ja')
    expect(dayLabel('2026-03-01', today)).toContain('2026年3月1日')
    expect(scheduleLine({ at: '18:00', next: iso(12, 18), last: { due: iso(11, 18), outcome: 'ok' } }, today)).toBe('Tofu が開いている間、毎日 18:00 に作成 · 次回 今日 18:00。前回の作成：昨日 18:00。')
    setLocale('system')
  })
})
