import { describe, expect, it } from 'vitest'
import { dequeue, edit, enqueue, putBack, takeNext, type Queues } from './queue'

describe('the message queue', () => {
  it('sends in order, one at a time, per conversation', () => {
    let qs: Queues = {}
    qs = enqueue(qs, 'a', 'one')
    qs = enqueue(qs, 'b', 'other')
    qs = enqueue(qs, 'a', '  two  ')
    qs = enqueue(qs, 'a', '   ')
    expect(qs.a!.map((q) => q.text)).toEqual(['one', 'two'])
    const first = takeNext(qs, 'a')!
    expect(first.next.text).toBe('one')
    const second = takeNext(first.rest, 'a')!
    expect(second.next.text).toBe('two')
    expect(takeNext(second.rest, 'a')).toBeNull()
    expect(second.rest).toEqual({ b: qs.b })
  })

  it('edits and removes a queued message; blank text removes it', () => {
    let qs = enqueue(enqueue(enqueue({}, 's', 'x'), 's', 'y'), 's', 'z')
    const [x, y, z] = qs.s!
    qs = edit(qs, 's', y!.id, 'why')
    expect(qs.s!.map((q) => q.text)).toEqual(['x', 'why', 'z'])
    qs = dequeue(qs, 's', x!.id)
    qs = edit(qs, 's', z!.id, ' ')
    expect(qs.s!.map((q) => q.text)).toEqual(['why'])
    qs = dequeue(qs, 's', y!.id)
    expect(qs).toEqual({})
  })

  it('a failed send goes back to the head', () => {
    const qs = enqueue(enqueue({}, 's', 'first'), 's', 'second')
    const { next, rest } = takeNext(qs, 's')!
    expect(putBack(rest, 's', next).s!.map((q) => q.text)).toEqual(['first', 'second'])
  })
})
