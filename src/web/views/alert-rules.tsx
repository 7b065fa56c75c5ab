import { CHANGE_TYPES, PAGE_TYPES, roleAllows, SEVERITIES } from '../../vocabulary/core.js'
import type { learnedRuleView } from '../../store/learned.js'
import type { alertRuleView } from '../../store/alert-rules.js'
import { RULE_ACTIONS, type RuleAction, type RuleMatch } from '../../vocabulary/alert-rules.js'
import { ruleWords } from './feedback.js'
import { Csrf, Time, type Viewer } from './layout.js'

// The alerts page's rules: the organisation's alert rules with the form that writes one
// (tried on the last 30 days first), and what was learned from people's feedback.

export type Learned = ReturnType<typeof learnedRuleView> & { url?: string }

/** The alert rule form's fields, as typed (kept when the form comes back). */
export type RuleForm = Record<'name' | 'action' | 'minSeverity' | 'minConfidence' | 'tags' | 'words' | 'plan' |
  'direction' | 'minPercent', string> & { changeTypes: string[], pageTypes: string[], domainIds: string[] }

export interface AlertRulesData {
  rules: Array<ReturnType<typeof alertRuleView>>
  /** Whether the plan has custom alert rules. */
  offered: boolean
  /** The organisation's domains, to choose among. */
  domains: Array<{ id: string, domain: string }>
  form?: RuleForm
  tried?: {
    total: number
    capped: boolean
    byAction: Record<RuleAction, number>
    rules: Array<{ id: string | null, name: string, action: RuleAction, decided: number }>
  }
}

const ACTION_WORDS: Record<RuleAction, string> = { alert: 'alert now', digest: 'put in the digest', mute: 'mute' }

/** A rule's conditions in words. */
function matchWords (m: RuleMatch, names: ReadonlyMap<string, string>): string {
  const parts = [
    m.changeTypes && `type ${m.changeTypes.map(t => t.replace('_', ' ')).join(' or ')}`,
    m.pageTypes && `on ${m.pageTypes.map(t => t.replace('_', ' ')).join(' or ')} pages`,
    m.tags && `of domains tagged ${m.tags.join(' or ')}`,
    m.domainIds && `of ${m.domainIds.map(id => names.get(id) ?? 'a deleted domain').join(' or ')}`,
    m.minSeverity && `severity ${m.minSeverity} or above`,
    m.minConfidence !== undefined && `confidence ${m.minConfidence} or more`,
    m.words && `mentioning ${m.words.map(w => `"${w}"`).join(' or ')}`,
    m.price && `a price ${m.price.direction === 'up' ? 'rise' : m.price.direction === 'down' ? 'cut' : 'move'}` +
      (m.price.plan ? ` of a plan named like "${m.price.plan}"` : '') +
      (m.price.minPercent !== undefined ? ` of ${m.price.minPercent}% or more` : '')
  ].filter(Boolean)
  return parts.length ? parts.join(', ') : 'every change'
}

const CheckList = (p: { name: string, legend: string, options: readonly string[], checked: string[] }) => (
  <fieldset>
    <legend>{p.legend}</legend>
    {p.options.map(o => (
      <label key={o} class='check'><input type='checkbox' name={p.name} value={o} checked={p.checked.includes(o)} /> {o.replace('_', ' ')}</label>
    ))}
  </fieldset>
)

/** The organisation's alert rules in order, and a form to write one, tried on the last 30 days before it is saved. */
export function AlertRules (p: AlertRulesData & { viewer: Viewer }) {
  if (!p.offered) {
    return <p class='card'>Alert rules (which changes alert you, wait for the digest or stay quiet) are custom alert rules: they come with the enterprise plan.</p>
  }
  const admin = roleAllows(p.viewer.role, 'admin')
  const f: RuleForm = p.form ?? { name: '', action: 'alert', minSeverity: '', minConfidence: '', tags: '', words: '', plan: '', direction: '', minPercent: '', changeTypes: [], pageTypes: [], domainIds: [] }
  const names = new Map(p.domains.map(d => [d.id, d.domain]))
  const candidate = p.tried?.rules.find(r => r.id === null)
  return (
    <>
      {p.rules.length === 0
        ? <p class='card'>No rule yet: every change is alerted as your plan and your e-mail settings say.</p>
        : (
          <ol class='card learned'>
            {p.rules.map(r => (
              <li key={r.id}>
                <form method='post' action={`/app/alerts/rules/${r.id}/delete`} class='row'>
                  <Csrf token={p.viewer.csrf} />
                  <span class='grow'><strong>{r.name}</strong>: {matchWords(r.match as RuleMatch, names)} → {ACTION_WORDS[r.action]}{r.enabled ? '' : ' (off)'}</span>
                  {admin ? <button type='submit' class='quiet' aria-label={`Delete the rule ${r.name}`}>Delete</button> : null}
                </form>
              </li>
            ))}
          </ol>
          )}
      <p class='small muted'>The first rule that matches a change decides; a change no rule matches is alerted. A muted change is still listed in Changes.</p>
      {admin
        ? (
          <form method='post' action='/app/alerts/rules' class='card' aria-label='Write an alert rule'>
            <Csrf token={p.viewer.csrf} />
            <label for='rule-name'>Name</label>
            <input id='rule-name' name='name' value={f.name} required maxLength={100} placeholder='Quiet counters' />
            <CheckList name='changeTypes' legend='Of type (none ticked: any)' options={CHANGE_TYPES} checked={f.changeTypes} />
            <CheckList name='pageTypes' legend='On pages of type (none ticked: any)' options={PAGE_TYPES} checked={f.pageTypes} />
            <div class='row'>
              <div>
                <label for='rule-severity'>Severity at least</label>
                <select id='rule-severity' name='minSeverity'>
                  <option value=''>any</option>
                  {SEVERITIES.map(s => <option key={s} value={s} selected={f.minSeverity === s}>{s}</option>)}
                </select>
              </div>
              <div>
                <label for='rule-confidence'>Confidence at least (0 to 1)</label>
                <input id='rule-confidence' name='minConfidence' type='number' min='0' max='1' step='0.05' value={f.minConfidence} />
              </div>
            </div>
            {p.domains.length > 0
              ? (
                <fieldset>
                  <legend>Of domains (none ticked: any)</legend>
                  {p.domains.map(d => (
                    <label key={d.id} class='check'><input type='checkbox' name='domainIds' value={d.id} checked={f.domainIds.includes(d.id)} /> {d.domain}</label>
                  ))}
                </fieldset>
                )
              : null}
            <label for='rule-tags'>Of domains tagged (comma-separated; empty: any)</label>
            <input id='rule-tags' name='tags' value={f.tags} />
            <label for='rule-words'>Whose added or removed lines mention (comma-separated; empty: anything)</label>
            <input id='rule-words' name='words' value={f.words} placeholder='arbitration, price' />
            <fieldset>
              <legend>A price move (empty: no price needed)</legend>
              <div class='row'>
                <div>
                  <label for='rule-plan'>Plan named like</label>
                  <input id='rule-plan' name='plan' value={f.plan} size={12} />
                </div>
                <div>
                  <label for='rule-direction'>Direction</label>
                  <select id='rule-direction' name='direction'>
                    <option value=''>up or down</option>
                    <option value='up' selected={f.direction === 'up'}>up</option>
                    <option value='down' selected={f.direction === 'down'}>down</option>
                  </select>
                </div>
                <div>
                  <label for='rule-percent'>By at least (%)</label>
                  <input id='rule-percent' name='minPercent' type='number' min='0' step='1' value={f.minPercent} size={6} />
                </div>
              </div>
            </fieldset>
            <label for='rule-action'>Then</label>
            <select id='rule-action' name='action'>
              {RULE_ACTIONS.map(a => <option key={a} value={a} selected={f.action === a}>{ACTION_WORDS[a]}</option>)}
            </select>
            {p.tried && candidate
              ? (
                <p role='status' class='notice'>
                  On the last 30 days, this rule would have decided <strong>{candidate.decided}</strong> of {p.tried.total} changes ({ACTION_WORDS[candidate.action]}){p.tried.capped ? ', the newest 10,000' : ''}. With your other rules: {p.tried.byAction.alert} alerted, {p.tried.byAction.digest} for the digest, {p.tried.byAction.mute} muted.
                </p>
                )
              : null}
            <p class='row'>
              <button type='submit' name='intent' value='try' class='quiet'>Try it on the last 30 days</button>
              <button type='submit' name='intent' value='save'>Save rule</button>
            </p>
          </form>
          )
        : null}
    </>
  )
}

/** The rules learned from "important" and "not important", each with the change it came from; removing one undoes it. */
export function LearnedRules (p: { viewer: Viewer, rules: Learned[] }) {
  if (p.rules.length === 0) {
    return <p class='card'>Nothing yet. On a change, say "Important" or "Not important": what Sitewatch learns from it is listed here.</p>
  }
  const editor = roleAllows(p.viewer.role, 'editor')
  return (
    <ul class='card learned'>
      {p.rules.map(r => (
        <li key={r.id}>
          <form method='post' action={`/app/learned/${r.id}/delete`} class='row'>
            <Csrf token={p.viewer.csrf} />
            <span class='grow'>
              {ruleWords(r)} on <a href={`/app/domains/${r.domainId ?? ''}/pages/${r.pageId}`}>{r.url}</a>
              <span class='small muted'>
                {' '}— learned <Time at={r.createdAt} />{r.createdBy ? ` from ${r.createdBy}` : ''}
                {r.fromChangeId ? <> on <a href={`/app/changes/${r.fromChangeId}`}>this change</a></> : null}
              </span>
            </span>
            {editor ? <button type='submit' class='quiet' aria-label={`Remove: ${ruleWords(r)} on ${r.url ?? ''}`}>Remove</button> : null}
          </form>
        </li>
      ))}
    </ul>
  )
}
