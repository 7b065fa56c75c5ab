import { parseLine } from '../../vocabulary/lines.js'
import type { ChangeView, ViewLine, ViewPassage } from '../../services/change-view.js'
import { Pager } from './layout.js'

// The whole of a change, as services/change-view.ts lays it out: the list of its edits
// (the most telling first, trivial ones folded under their count), then every passage in
// page order with the unchanged text between them folded into a <details> that opens
// without script. Headings read as headings, items as items; changed words are marked
// whole, never letters inside a word.

const KIND_NAMES: Record<string, string> = {
  renumbering: 'renumbering',
  typography: 'typography',
  spelling: 'spelling',
  last_updated: 'date of last update'
}

function Words (p: { line: ViewLine }) {
  return (
    <>
      {p.line.words.map((w, i) => w.change === 'removed'
        ? <del key={i}>{w.value}</del>
        : w.change === 'added' ? <ins key={i}>{w.value}</ins> : <span key={i}>{w.value}</span>)}
    </>
  )
}

/** One line as the page shows it: a heading as a heading, an item as an item, text as a paragraph. */
function Line (p: { line: ViewLine }) {
  const l = p.line
  const cls = `line line-${l.type}`
  const label = l.type === 'removed' ? 'Removed: ' : l.type === 'added' ? 'Added: ' : l.type === 'changed' ? 'Changed: ' : ''
  const sr = label ? <span class='sr-only'>{label}</span> : null
  if (l.heading) {
    const level = Math.min(6, l.heading + 2)
    const Tag = `h${level}` as 'h3'
    return <Tag class={cls}>{sr}<Words line={l} /></Tag>
  }
  if (l.item) return <p class={`${cls} line-item`}>{sr}<Words line={l} /></p>
  return <p class={cls}>{sr}<Words line={l} /></p>
}

/** The unchanged text between two passages, folded: "… 12 unchanged paragraphs …". */
function Gap (p: { lines: ViewLine[], before: number }) {
  if (p.lines.length === 0) return null
  const n = p.lines.length
  return (
    <details class='gap'>
      <summary>… {n} unchanged paragraph{n === 1 ? '' : 's'}{p.before > 0 ? ` before edit ${p.before}` : ''} …</summary>
      <div class='unchanged'>{p.lines.map((l, i) => <Line key={i} line={l} />)}</div>
    </details>
  )
}

function Passage (p: { passage: ViewPassage, prefix?: string }) {
  const x = p.passage
  return (
    <section id={`${p.prefix ?? 'edit'}-${x.n}`} class={`card passage passage-${x.kind}`} aria-label={`Edit ${x.n}: ${x.headline}`} tabIndex={-1}>
      <p class='small muted'>
        Edit {x.n}{x.kind !== 'substantive' ? ` · ${KIND_NAMES[x.kind] ?? x.kind}` : ''}{x.section ? ` · section ${x.section}` : ''}
        {x.under && !x.section ? ` · under “${x.under}”` : ''}
      </p>
      {x.lines.map((l, i) => <Line key={i} line={l} />)}
    </section>
  )
}

/**
 * The list of edits and every passage of the change, paged when it is very large. `prefix`
 * names its passages' anchors (two on one page: a version's text and its document's).
 */
export function WholeChange (p: { view: ChangeView, href: (page: number) => string, prefix?: string, title?: string }) {
  const v = p.view
  const prefix = p.prefix ?? 'edit'
  const onPage = new Set(v.passages.map(x => x.n))
  const link = (n: number) => onPage.has(n) ? `#${prefix}-${n}` : `${p.href(Math.ceil(n / v.pageSize))}#${prefix}-${n}`
  return (
    <>
      <h2>{p.title ?? 'What changed'}</h2>
      <nav class='card edits' aria-label={p.title ? `The edits: ${p.title}` : 'The edits of this change'}>
        <p class='small'>{v.total} passage{v.total === 1 ? '' : 's'} changed{v.all.length > 0 ? '; what they change:' : '.'}</p>
        {v.all.length > 0
          ? <ol>{v.all.map(e => <li key={e.n}><a href={link(e.n)}>{e.headline}</a></li>)}</ol>
          : null}
        {v.trivial.map(t => (
          <details key={t.kind}>
            <summary>{t.phrase}</summary>
            <ul class='inline-list'>{t.passages.map(n => <li key={n}><a href={link(n)}>edit {n}</a></li>)}</ul>
          </details>
        ))}
      </nav>
      {v.passages.map(x => (
        <div key={x.n}>
          <Gap lines={x.gap} before={x.n} />
          <Passage passage={x} prefix={prefix} />
        </div>
      ))}
      <Gap lines={v.tail} before={0} />
      <Pager page={v.page} pageSize={v.pageSize} total={v.total} href={p.href} />
    </>
  )
}

/** A version's text as the page reads: headings as headings, items as items. */
export function VersionText (p: { lines: string[], class?: string, headingsFrom?: number }) {
  const lines = p.lines.map(parseLine)
  // The levels the text uses, in order, as the headings from `headingsFrom` on: none skipped.
  const levels = [...new Set(lines.filter(l => l.kind === 'heading').map(l => l.level!))].sort((a, b) => a - b)
  return (
    <div class={p.class ?? 'card version'}>
      {lines.map((line, i) => {
        if (line.kind === 'heading') {
          const Tag = `h${Math.min(6, (p.headingsFrom ?? 3) + levels.indexOf(line.level!))}` as 'h3'
          return <Tag key={i}>{line.text}</Tag>
        }
        return <p key={i} class={line.kind === 'item' ? 'line-item' : undefined}>{line.cells ? line.cells.join(' · ') : line.text}</p>
      })}
    </div>
  )
}
