// Messages typed while a reply runs wait in a queue, per conversation, and are sent one at a
// time, in order, as each reply ends. Pure: the app state holds the queues and sends.

export type Queued = { id: number; text: string }
export type Queues = Record<string, Queued[]>

let nextId = 1

/** Adds a message at the end of the conversation's queue (blank text is not queued). */
export function enqueue(qs: Queues, session: string, text: string): Queues {
  const body = text.trim()
  if (!body) return qs
  return { ...qs, [session]: [...(qs[session] ?? []), { id: nextId++, text: body }] }
}

/** Removes a queued message. */
export function dequeue(qs: Queues, session: string, id: number): Queues {
  const left = (qs[session] ?? []).filter((q) => q.id !== id)
  return withList(qs, session, left)
}

/** Replaces a queued message's text; blank text removes it. */
export function edit(qs: Queues, session: string, id: number, text: string): Queues {
  const body = text.trim()
  if (!body) return dequeue(qs, session, id)
  return withList(qs, session, (qs[session] ?? []).map((q) => (q.id === id ? { ...q, text: body } : q)))
}

/** The message to send next and the queues without it (null when the queue is empty). */
export function takeNext(qs: Queues, session: string): { next: Queued; rest: Queues } | null {
  const list = qs[session] ?? []
  if (list.length === 0) return null
  return { next: list[0]!, rest: withList(qs, session, list.slice(1)) }
}

/** Puts a message back at the head of the queue (its send failed). */
export function putBack(qs: Queues, session: string, q: Queued): Queues {
  return { ...qs, [session]: [q, ...(qs[session] ?? [])] }
}

function withList(qs: Queues, session: string, list: Queued[]): Queues {
  const out = { ...qs }
  if (list.length) out[session] = list
  else delete out[session]
  return out
}
