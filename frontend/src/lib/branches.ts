// Branches of a conversation (docs/BRANCHES.md): the same tree Go reads from the log
// (backend/store/branch.go). Every event hangs below the event that was the head when it was
// appended; `branch` hangs below its `from` and `branch_switch` moves the head. The transcript
// projects the active path only and shows `< 2/3 >` on the first message after each fork.
import type { Event } from './types'

export type Tree = {
  parent: Map<number, number>
  children: Map<number, number[]>
  head: number
  /** The log has a branch or switch event (else the path is the log itself). */
  branched: boolean
}

/** Where the active path could go another way: `at` has several children. */
export type Fork = { at: number; alternatives: number[]; index: number }

/** The `< i/n >` of a message: its version and the first events of the neighbouring ones. */
export type BranchNav = { index: number; count: number; prev: number | null; next: number | null }

const num = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : -1)

export function treeOf(events: Event[]): Tree {
  const t: Tree = { parent: new Map(), children: new Map(), head: 0, branched: false }
  // Most logs never branch: then the path is the log, and no fork needs the maps (the
  // transcript is projected on every streamed frame).
  if (!events.some((e) => e.type === 'branch' || e.type === 'branch_switch')) {
    for (let i = events.length - 1; i >= 0; i--) {
      if (events[i].seq > 0) {
        t.head = events[i].seq
        break
      }
    }
    return t
  }
  const valid = (seq: number, at: number) => seq >= 0 && seq < at && (seq === 0 || t.parent.has(seq))
  const link = (seq: number, parent: number) => {
    t.parent.set(seq, parent)
    const kids = t.children.get(parent)
    if (kids) kids.push(seq)
    else t.children.set(parent, [seq])
  }
  for (const e of events) {
    if (!(e.seq > 0)) continue
    const d = (typeof e.data === 'object' && e.data !== null ? e.data : {}) as Record<string, unknown>
    if (e.type === 'branch') {
      t.branched = true
      const from = num(d.from)
      if (valid(from, e.seq)) {
        link(e.seq, from)
        t.head = e.seq
      }
      continue
    }
    if (e.type === 'branch_switch') {
      t.branched = true
      const head = num(d.head)
      if (head > 0 && valid(head, e.seq)) t.head = head
      continue
    }
    link(e.seq, t.head)
    t.head = e.seq
  }
  return t
}

function onPath(t: Tree): Set<number> {
  const on = new Set<number>()
  for (let n = t.head; n !== 0 && n !== undefined; n = t.parent.get(n) ?? 0) on.add(n)
  return on
}

/** The events of the active path in order; events never stored (no seq) stay at the end. */
export function activePath(events: Event[], tree: Tree = treeOf(events)): Event[] {
  if (!tree.branched) return events
  const on = onPath(tree)
  return events.filter((e) => !(e.seq > 0) || on.has(e.seq))
}

/** The forks along the active path, in order. */
export function forks(t: Tree): Fork[] {
  const on = onPath(t)
  const out: Fork[] = []
  for (const [at, kids] of t.children) {
    if (kids.length < 2 || (at !== 0 && !on.has(at))) continue
    const index = kids.findIndex((k) => on.has(k))
    if (index >= 0) out.push({ at, alternatives: [...kids], index })
  }
  return out.sort((a, b) => a.at - b.at)
}

/**
 * The `< i/n >` of each message, by the seq of the message it shows under: the first user or
 * assistant message after each fork, on the active path. `messages` are the seqs of the path's
 * messages in order.
 */
export function branchNavs(t: Tree, messages: number[]): Map<number, BranchNav> {
  const navs = new Map<number, BranchNav>()
  for (const f of forks(t)) {
    const under = messages.find((s) => s > f.at)
    if (under === undefined || navs.has(under)) continue
    navs.set(under, {
      index: f.index,
      count: f.alternatives.length,
      prev: f.index > 0 ? f.alternatives[f.index - 1] : null,
      next: f.index < f.alternatives.length - 1 ? f.alternatives[f.index + 1] : null,
    })
  }
  return navs
}

type Versioned = { kind: string; seq: number | null; streaming?: boolean; branch?: BranchNav; regenerate?: boolean }

/**
 * Puts each fork's `< i/n >` on its message, and marks the reply that ends each turn as the one
 * that offers Regenerate (not while a turn runs: Go refuses it then).
 */
export function annotateBranches<T extends Versioned>(items: T[], tree: Tree, running: boolean): void {
  const messages = items.filter((it) => (it.kind === 'user' || it.kind === 'assistant') && typeof it.seq === 'number' && it.seq > 0)
  const navs = branchNavs(
    tree,
    messages.map((it) => it.seq as number),
  )
  for (const it of messages) {
    const nav = navs.get(it.seq as number)
    if (nav) it.branch = nav
  }
  if (running) return
  let lastReply: T | null = null
  for (const it of items) {
    if (it.kind === 'user') {
      if (lastReply) lastReply.regenerate = true
      lastReply = null
    } else if (it.kind === 'assistant' && typeof it.seq === 'number' && it.seq > 0 && !it.streaming) {
      lastReply = it
    }
  }
  if (lastReply) lastReply.regenerate = true
}
