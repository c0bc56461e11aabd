// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import { loadCatalogue, setLocale } from './i18n/index.svelte'
import { jobFromForm, missedTotal, nextText, runText, cronText, whatText, whenText, type ScheduleJob } from './schedule'

const job = (over: Partial<ScheduleJob>): ScheduleJob => ({ id: 'j', name: 'n', kind: 'prompt', created: '', ...over })

describe('schedule view', () => {
  it('says when a job runs and what is next', () => {
    expect(whenText(job({ cron: '30 9 * * 1-5' }))).toBe('On weekdays at 09:30 (cron 30 9 * * 1-5)')
    expect(whenText(job({ at: new Date(2026, 2, 10, 9, 5).toISOString() }))).toBe('once at 2026-03-10 09:05')
    expect(nextText(job({ done: true, next: '0001-01-01T00:00:00Z' }))).toBe('done')
    expect(nextText(job({ next: new Date(2026, 2, 11, 9, 30).toISOString() }))).toBe('next 2026-03-11 09:30')
  })
  it('reports missed runs, not hides them', () => {
    const due = new Date(2026, 2, 10, 9, 0).toISOString()
    expect(runText({ due, outcome: 'missed', missed: 3 })).toBe('missed 3 runs from 2026-03-10 09:00: Tofu was not open')
    expect(runText({ due, outcome: 'waiting' })).toBe('2026-03-10 09:00 checked: not yet')
    expect(runText({ due, outcome: 'boom' })).toBe('2026-03-10 09:00 failed: boom')
    const jobs = [job({ runs: [{ due, outcome: 'missed', missed: 3 }, { due, outcome: 'ok' }] }), job({ runs: [{ due, outcome: 'missed' }] }), job({ runs: null })]
    expect(missedTotal(jobs)).toBe(4)
  })
  it('sends only the fields a kind uses', () => {
    const form = { name: ' w ', kind: 'watch' as const, when: 'cron' as const, cron: '*/10 * * * *', at: '', prompt: 'report', session: 's1', workspace: '/ws', command: 'make', condition: 'done' }
    expect(jobFromForm(form)).toEqual({ name: 'w', kind: 'watch', cron: '*/10 * * * *', prompt: 'report', session: 's1', condition: 'done' })
    expect(jobFromForm({ ...form, kind: 'command', when: 'at', at: '2026-03-10T09:00' })).toEqual({
      name: 'w', kind: 'command', at: new Date('2026-03-10T09:00').toISOString(), workspace: '/ws', command: 'make' })
  })
  it('says a late catch-up run and what the My Day job is', () => {
    const due = new Date(2026, 2, 10, 18, 0).toISOString()
    const started = new Date(2026, 2, 11, 9, 2).toISOString()
    expect(runText({ due, started, outcome: 'ok', late: true })).toBe('2026-03-10 18:00 ran late, at 2026-03-11 09:02')
    expect(runText({ due, started, outcome: 'ok' })).toBe('2026-03-10 18:00 ran')
    expect(whatText(job({ kind: 'myday', cron: '0 18 * * *' }))).toContain('My Day report')
    expect(whatText(job({ kind: 'agent', prompt: 'tidy', workspace: '/w' }))).toBe('tidy — in /w')
  })
})

describe('cronText', () => {
  it('says common cron expressions in words (regression, issue 36: only a raw cron string)', () => {
    expect(cronText('0 9 * * 1-5')).toBe('On weekdays at 09:00')
    expect(cronText('30 7 * * *')).toBe('Every day at 07:30')
    expect(cronText('*/15 * * * *')).toBe('Every 15 minutes')
    expect(cronText('5 * * * *')).toBe('Every hour at 5 minutes past')
    expect(cronText('0 * * * *')).toBe('Every hour, on the hour')
    expect(cronText('0 8 1 * *')).toBe('On day 1 of each month at 08:00')
    expect(cronText('0 9,17 * * 1,4')).toBe('On Mondays and Thursdays at 09:00 and 17:00')
    expect(cronText('0 10 * * 0,6')).toBe('At weekends at 10:00')
    expect(cronText('0 9 * 1 *')).toBeNull()
    expect(cronText('0 9 * *')).toMatch(/^Not a cron expression/)
  })
})

describe('the schedule in Chinese and Japanese', () => {
  it('says crons, runs and jobs in the UI language', async () => {
    const due = new Date(2026, 2, 10, 9, 0).toISOString()
    setLocale('zh')
    await loadCatalogue('zh')
    expect(cronText('0 9,17 * * 1,4')).toBe('每周一和周四 09:00和17:00')
    expect(cronText('0 9 * * 1-5')).toBe('每个工作日 09:00')
    expect(cronText('*/15 * * * *')).toBe('每 15 分钟')
    expect(cronText('0 9 *')!.startsWith('无效：')).toBe(true)
    expect(runText({ due, outcome: 'missed', missed: 3 })).toBe('自 2026-03-10 09:00 起错过 3 次运行：Tofu 未打开')
    setLocale('ja')
    await loadCatalogue('ja')
    expect(cronText('0 8 1 * *')).toBe('毎月 1 日 08:00')
    expect(cronText('0 10 * * 0,6')).toBe('週末 10:00')
    expect(cronText('0 9 * * 1,3,5')).toBe('毎週月曜、水曜と金曜 09:00')
    expect(nextText({ id: 'j', name: 'n', kind: 'prompt', created: due, done: true })).toBe('完了')
    setLocale('system')
  })
})
