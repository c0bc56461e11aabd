// The paper library and the reader's state and actions (docs/PAPER.md, "Reader").
import { t } from './i18n/index.svelte'
import { api, on, transportKind } from './bridge'
import { app } from './app.svelte'
import { defaultLanguage, exportName, importingAfter, isPDF, retrievalsByReply, type Importing } from './papers'
import { apply, emptyTranscript, project, withEvents, type TranscriptState } from './transcript'
import type { Event, PaperInfo, PaperView, Retrieval, SessionMessage, Translation, TranslationProgress } from './types'

export type Tab = 'qa' | 'report' | 'translate'
export type ImportProblem = { name: string; message: string; needsPassword: boolean; file?: File }

let userLanguageName: string | undefined

/** The user's language as an English name (defaultLanguage), worked out once. */
function userLanguage(): string {
  return (userLanguageName ??= defaultLanguage())
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

class ReaderState {
  papers = $state<PaperInfo[]>([])
  query = $state('')
  importing = $state<Importing | null>(null)
  problem = $state<ImportProblem | null>(null)

  view = $state.raw<PaperView | null>(null)
  tab = $state<Tab>('qa')
  /** Page to scroll to and the boxes to highlight there; bumped on every citation click. */
  target = $state<{ page: number; tick: number; boxes: import('./types').BBox[] }>({ page: 1, tick: 0, boxes: [] })
  draft = $state('')
  focusTick = $state(0)

  qa = $state.raw<TranscriptState>(emptyTranscript)
  qaStreaming = $state(false)
  qaItems = $derived(project(this.qa))
  retrievals = $derived(retrievalsByReply(this.qa.events))

  report = $state('')
  reportLive = $state('')
  reportStreaming = $state(false)

  // The translation's target, the user's language until they type another. Asked of Intl only
  // when first read: Intl.DisplayNames loads ICU's language names, some 40 ms at start-up that
  // the window's first paint waited for, though most sessions never translate.
  #lang = $state<string | null>(null)
  get lang(): string {
    return this.#lang ?? userLanguage()
  }
  set lang(value: string) {
    this.#lang = value
  }
  translation = $state.raw<Translation | null>(null)
  progress = $state<TranslationProgress | null>(null)
  error = $state('')

  private unsubs: (() => void)[] = []
  private paperUnsubs: (() => void)[] = []

  async start() {
    this.unsubs.push(
      on('papers', (d) => {
        if (Array.isArray(d)) this.papers = d as PaperInfo[]
        else if (d && (d as { kind?: string }).kind === 'open') void this.takeOpens()
        else this.importing = importingAfter(this.importing, d)
      }),
    )
    try {
      this.papers = await api.papers.list()
    } catch {
      // shown by the app's connection state
    }
    await this.takeOpens()
  }

  /** Shows the papers the desktop asked for ("Open with Tofu" on a PDF, `tofu open`): the last
   * one opens in the reader; one that could not be imported says why, as a failed drop does. */
  async takeOpens() {
    let asked: Awaited<ReturnType<typeof api.papers.takeOpens>> = []
    try {
      asked = await api.papers.takeOpens()
    } catch {
      return // shown by the app's connection state
    }
    if (asked.length === 0) return
    this.importing = null
    const failed = asked.filter((o) => o.error)
    const last = asked.filter((o) => o.id).pop()
    if (failed.length > 0) {
      const f = failed[failed.length - 1]
      this.problem = { name: f.name, message: f.error ?? '', needsPassword: /password/i.test(f.error ?? '') }
    }
    if (last?.id) await this.open(last.id)
  }

  async importFile(file: File, password = '') {
    if (!isPDF(file)) {
      this.problem = { name: file.name, message: `${file.name} is not a PDF`, needsPassword: false, file }
      return
    }
    this.problem = null
    this.importing = { name: file.name, done: 0, total: 0, own: true }
    try {
      const info = await api.papers.upload(file, password)
      this.importing = null
      await this.open(info.id)
    } catch (err) {
      this.importing = null
      const message = messageOf(err)
      this.problem = { name: file.name, message, needsPassword: /password/i.test(message), file }
    }
  }

  /** Downloads a paper from arXiv (id or URL); the backend refuses when web access is off. */
  async importArxiv(ref: string) {
    ref = ref.trim()
    if (!ref) return
    this.problem = null
    this.importing = { name: `arXiv ${ref}`, done: 0, total: 0, own: true }
    try {
      const info = await api.papers.importArxiv(ref)
      this.importing = null
      await this.open(info.id)
    } catch (err) {
      this.importing = null
      this.problem = { name: ref, message: messageOf(err), needsPassword: false }
    }
  }

  async open(id: string) {
    this.error = ''
    try {
      const view = await api.papers.open(id)
      this.close()
      this.view = view
      this.report = view.report ?? ''
      this.target = { page: 1, tick: 0, boxes: [] }
      await Promise.all([this.loadQA(), this.loadTranslation()])
      this.paperUnsubs.push(
        on(`paper:${id}`, (d) => {
          const p = d as TranslationProgress
          if (p?.kind !== 'translation' || p.lang !== this.lang) return
          this.progress = p
          void this.loadTranslation()
        }),
      )
      if (view.info.report) this.watchReport(view.info.report)
    } catch (err) {
      this.error = messageOf(err)
    }
  }

  close() {
    for (const u of this.paperUnsubs) u()
    this.paperUnsubs = []
    this.view = null
    this.qa = emptyTranscript
    this.qaStreaming = false
    this.report = ''
    this.reportLive = ''
    this.reportStreaming = false
    this.translation = null
    this.progress = null
  }

  private watchedQA = ''
  private async loadQA() {
    const sid = this.view?.info.qa
    if (!sid) return
    if (this.watchedQA !== sid) {
      this.watchedQA = sid
      this.paperUnsubs.push(
        on(`session:${sid}`, (d) => {
          const msg = d as SessionMessage
          if (msg.kind === 'stream') this.qaStreaming = msg.state === 'started'
          this.qa = apply(this.qa, msg)
        }),
      )
    }
    const events: Event[] = await api.sessions.transcript(sid)
    this.qa = withEvents(this.qa, events)
  }

  retrievalFor(seq: number | null): Retrieval | undefined {
    if (seq === null) return undefined
    return this.retrievals.get(seq)
  }

  async ask(text: string) {
    const v = this.view
    const q = text.trim()
    if (!v || !q) return
    this.error = ''
    try {
      const sid = await api.papers.ask(v.info.id, q, app.model)
      this.draft = ''
      if (v.info.qa !== sid) {
        this.view = { ...v, info: { ...v.info, qa: sid } }
      }
      await this.loadQA()
    } catch (err) {
      this.error = messageOf(err)
    }
  }

  async stopQA() {
    const sid = this.view?.info.qa
    if (sid) await api.chat.stop(sid)
  }

  askAboutSelection(text: string, page: number) {
    const quote = text.replace(/\s+/g, ' ').trim().slice(0, 600)
    this.tab = 'qa'
    this.draft = `About this passage on page ${page}: “${quote}”\n\n`
    this.focusTick++
  }

  goTo(page: number, boxes: import('./types').BBox[] = []) {
    this.target = { page, tick: this.target.tick + 1, boxes }
  }

  private watchedReport = ''
  private watchReport(sid: string) {
    if (this.watchedReport === sid) return
    this.watchedReport = sid
    this.paperUnsubs.push(
      on(`session:${sid}`, (d) => {
        const msg = d as SessionMessage
        if (msg.kind === 'stream') {
          this.reportStreaming = msg.state === 'started'
          if (msg.state === 'started') this.reportLive = ''
        } else if (msg.kind === 'delta') {
          this.reportLive += msg.text ?? ''
        } else if (msg.kind === 'reset') {
          this.reportLive = ''
        } else if (msg.kind === 'event' && msg.event.type === 'assistant') {
          const a = msg.event.data as { text: string; interrupted?: boolean; stop_reason?: string }
          if (!a.interrupted && a.stop_reason !== 'error' && a.text) this.report = a.text
          this.reportLive = ''
        } else if (msg.kind === 'event' && msg.event.type === 'error') {
          this.error = (msg.event.data as { message?: string }).message ?? t('report.failed')
        }
      }),
    )
  }

  async generateReport() {
    const v = this.view
    if (!v) return
    this.error = ''
    try {
      this.reportLive = ''
      this.reportStreaming = true
      const sid = await api.papers.report(v.info.id, app.model)
      if (v.info.report !== sid) this.view = { ...v, info: { ...v.info, report: sid } }
      this.watchReport(sid)
    } catch (err) {
      this.reportStreaming = false
      this.error = messageOf(err)
    }
  }

  async stopReport() {
    const sid = this.view?.info.report
    if (sid) await api.chat.stop(sid)
  }

  async loadTranslation() {
    const v = this.view
    if (!v) return
    try {
      this.translation = await api.papers.translation(v.info.id, this.lang)
    } catch (err) {
      // No translation answers null; an error here is a real failure (the store, the bridge).
      this.translation = null
      this.error = messageOf(err)
    }
  }

  async translate() {
    const v = this.view
    if (!v) return
    this.error = ''
    try {
      await api.papers.translate(v.info.id, this.lang, app.model)
      this.progress = { kind: 'translation', lang: this.lang, done: 0, total: 0, state: 'running' }
    } catch (err) {
      this.error = messageOf(err)
    }
  }

  async stopTranslate() {
    if (this.view) await api.papers.stopTranslate(this.view.info.id)
  }

  async remove(id: string) {
    try {
      await api.papers.delete(id)
      if (this.view?.info.id === id) this.close()
    } catch (err) {
      app.notice = { message: messageOf(err) }
    }
  }

  async exportMarkdown(what: 'report' | 'translation') {
    const v = this.view
    if (!v) return
    try {
      if (transportKind() === 'wails') {
        // WebKitGTK ignores download links: the window saves through its native dialog.
        const path = await api.papers.saveExport(v.info.id, what, this.lang)
        if (path) app.notice = { message: t('trace.saved', { path }) }
        return
      }
      const md = what === 'report' ? await api.papers.reportMarkdown(v.info.id) : await api.papers.translationMarkdown(v.info.id, this.lang)
      const a = document.createElement('a')
      a.href = URL.createObjectURL(new Blob([md], { type: 'text/markdown' }))
      a.download = exportName(v.info.title, what === 'report' ? 'report' : this.lang.toLowerCase())
      a.click()
      setTimeout(() => URL.revokeObjectURL(a.href), 10000)
    } catch (err) {
      this.error = messageOf(err)
    }
  }
}

export const reader = new ReaderState()
