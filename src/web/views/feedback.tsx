import type { ChangeType, FactSubject, IgnoredFact } from '../../vocabulary/core.js'
import { CHANGE_TYPE_WORDS } from '../../vocabulary/learned.js'
import { Csrf, Time, type Viewer } from './layout.js'

// A change's verdict (important or not), what "not important" offers to learn, and the
// rules learned from it.

export interface Offer { kind: string, description: string, fact?: IgnoredFact }
export interface LearnedItem {
  id: string
  kind: string
  pattern: string | null
  fact?: IgnoredFact | null
  changeType: ChangeType | null
}

/** How a learned rule names the facts it mutes. */
const SUBJECT_WORDS: Record<FactSubject, string> = {
  price: 'price moves of',
  plan: 'the plan',
  limit: 'moves of the limit',
  feature: 'the feature',
  section: 'the section',
  operation: 'changes of the operation',
  release: 'the entry'
}

export const ruleWords = (r: LearnedItem) =>
  r.kind === 'mute'
    ? r.fact ? `Mutes ${SUBJECT_WORDS[r.fact.kind]} "${r.fact.subject}"` : `Mutes text matching ${r.pattern ?? ''}`
    : `${r.kind === 'lower' ? 'Lowers' : 'Raises'} later ${r.changeType ? CHANGE_TYPE_WORDS[r.changeType] : 'changes'} of the page to ${r.kind === 'lower' ? 'low' : 'high'}`

/** Was it important? A person's verdict, what it teaches, and the rules learned from it so far. */
export function Feedback (p: {
  change: { id: string, verdict?: string | null, pinnedAt?: Date | null }
  viewer: Viewer
  offers: Offer[]
  learned: LearnedItem[]
}) {
  const c = p.change
  return (
    <section aria-labelledby='feedback'>
      <h2 id='feedback'>Was this important?</h2>
      {c.verdict === 'important' ? <p>Pinned as important{c.pinnedAt ? <> <Time at={c.pinnedAt} /></> : null}.</p> : null}
      {c.verdict === 'not_important' ? <p>Marked as not important: it stays in the inbox's history and its search.</p> : null}
      <form method='post' action={`/app/changes/${c.id}/feedback`} class='row'>
        <Csrf token={p.viewer.csrf} />
        <button type='submit' name='verdict' value='important' class={c.verdict === 'important' ? 'quiet' : undefined}>Important</button>
        <button type='submit' name='verdict' value='not_important' class='quiet'>Not important</button>
      </form>
      {c.verdict === 'not_important' && p.offers.length > 0
        ? (
          <div>
            <p>Sitewatch can learn from this, on this page only:</p>
            <ul class='offers'>
              {p.offers.map(o => (
                <li key={`${o.kind} ${o.fact?.kind ?? ''} ${o.fact?.subject ?? ''}`}>
                  <form method='post' action={`/app/changes/${c.id}/learn`} class='row'>
                    <Csrf token={p.viewer.csrf} />
                    {o.fact ? <><input type='hidden' name='factKind' value={o.fact.kind} /><input type='hidden' name='factSubject' value={o.fact.subject} /></> : null}
                    <span class='grow'>{o.description}</span>
                    <button type='submit' name='kind' value={o.kind}>{o.kind === 'mute' ? 'Mute it' : 'Lower them'}</button>
                  </form>
                </li>
              ))}
            </ul>
          </div>
          )
        : null}
      {p.learned.length > 0
        ? (
          <>
            <p>Learned from this change (see <a href='/app/alerts#learned'>everything learned</a>):</p>
            <ul class='learned'>{p.learned.map(r => <li key={r.id}>{ruleWords(r)}</li>)}</ul>
          </>
          )
        : null}
    </section>
  )
}
