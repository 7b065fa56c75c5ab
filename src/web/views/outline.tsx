import type { PageOutline, RulesPreview } from '../../vocabulary/outline.js'
import { VersionText } from './diff.js'

// Point and watch: a page's blocks as Sitewatch reads them, to tick rather than write
// selectors (each block's selector is shown, and lands in the settings' boxes), with where
// each moved; then what the next check would compare with the picks, and what the last 30
// days' changes would have been, before anything is saved.

/** How often a block moved, in words; "often" from two moves in the 30 days on. */
function Churn (p: { churn: PageOutline['blocks'][number]['churn'], marked: boolean }) {
  const { moves, reported, important } = p.churn
  if (moves === 0) return null
  const told = reported === 0
    ? 'never reported as a change'
    : `${reported === moves ? 'each' : `${reported}`} reported as a change${important ? ', one marked important' : ', none marked important'}`
  return <span class={p.marked ? 'small warn' : 'small muted'}> · moved {moves === 1 ? 'once' : `${moves} times`} in 30 days, {told}</span>
}

/**
 * The page's picture with each block's box drawn over it, numbered as the list is (an SVG
 * over the image, scaled with it: no script, no inline style); ticked blocks stand out.
 */
function PictureWithBoxes (p: { base: string, outline: PageOutline, picked: { watch: string[], ignore: string[] } }) {
  const { picture, blocks } = p.outline
  if (!picture) return null
  const boxed = blocks.map((b, i) => ({ b, n: i + 1 })).filter(({ b }) => b.box !== null)
  if (boxed.length === 0) return null
  const state = (selector: string) =>
    p.picked.watch.includes(selector) ? ' watched' : p.picked.ignore.includes(selector) ? ' ignored' : ''
  return (
    <details class='outline-picture'>
      <summary>The picture with each block's box ({boxed.length} blocks)</summary>
      <figure>
        <img src={`${p.base}/snapshots/${picture.snapshotId}/picture`} alt='The page as the browser showed it' width={picture.width} height={picture.height} loading='lazy' />
        <svg viewBox={`0 0 ${picture.width} ${picture.height}`} preserveAspectRatio='none' aria-hidden='true'>
          {boxed.map(({ b, n }) => (
            <g key={n} class={`box depth-${Math.min(b.depth, 2)}${state(b.selector)}`}>
              <rect x={b.box!.x} y={b.box!.y} width={b.box!.width} height={b.box!.height} />
              <text x={b.box!.x + 4} y={b.box!.y + 22}>{n}</text>
            </g>
          ))}
        </svg>
      </figure>
    </details>
  )
}

/**
 * The blocks that keep moving: twice or more in 30 days, no change of them marked
 * important, and not only because a block inside them moved as often (the page's top
 * section moves whenever its counter does: the counter is the one to mark).
 */
function churning (blocks: PageOutline['blocks']): Set<number> {
  const marked = new Set<number>()
  blocks.forEach((b, i) => {
    if (b.churn.moves < 2 || b.churn.important) return
    for (let j = i + 1; j < blocks.length && blocks[j].depth > b.depth; j++) {
      if (blocks[j].churn.moves >= b.churn.moves) return
    }
    marked.add(i)
  })
  return marked
}

type Numbered = { b: PageOutline['blocks'][number], n: number }

/** Blocks with what each holds: the blocks after it that are deeper, up to the next of its depth or shallower. */
function nest (blocks: readonly Numbered[]): Array<Numbered & { inside: Numbered[] }> {
  const out: Array<Numbered & { inside: Numbered[] }> = []
  for (const x of blocks) {
    const last = out.at(-1)
    if (last && x.b.depth > last.b.depth) last.inside.push(x)
    else out.push({ ...x, inside: [] })
  }
  return out
}

/** What a fold holds, in words: "Its 2 blocks (8 in all)". */
function held (inside: readonly Numbered[]): string {
  const own = nest(inside).length
  return `Its ${own} block${own === 1 ? '' : 's'}${inside.length > own ? ` (${inside.length} in all)` : ''}`
}

/**
 * The sections first, each one's blocks folded under it: a page of a hundred blocks reads
 * as its dozen sections. A fold is open when what it holds is ticked or keeps moving, or
 * when it is the only one of its level (there is nothing to choose between).
 */
function OutlineList (p: { blocks: readonly Numbered[], marked: ReadonlySet<number>, picked: { watch: string[], ignore: string[] } }) {
  const level = nest(p.blocks)
  const ticked = (x: Numbered) => p.picked.watch.includes(x.b.selector) || p.picked.ignore.includes(x.b.selector)
  return (
    <ol class='outline'>
      {level.map(({ b, n, inside }) => (
        <li key={n} class={`depth-${b.depth}${p.marked.has(n - 1) ? ' churning' : ''}`}>
          <span class='small muted'>{n}. {b.kind}</span> {b.text}
          <Churn churn={b.churn} marked={p.marked.has(n - 1)} />
          <span class='picks'>
            <label class='small'><input type='checkbox' name='watch' value={b.selector} checked={p.picked.watch.includes(b.selector)} aria-label={`Watch only: ${b.text}`} /> Watch only</label>
            <label class='small'><input type='checkbox' name='ignore' value={b.selector} checked={p.picked.ignore.includes(b.selector)} aria-label={`Ignore: ${b.text}`} /> Ignore</label>
            <code class='small selector'>{b.selector}</code>
          </span>
          {inside.length > 0
            ? (
              <details class='outline-inside' open={level.length === 1 || inside.some(x => ticked(x) || p.marked.has(x.n - 1))}>
                <summary class='small'>{held(inside)}</summary>
                <OutlineList blocks={inside} marked={p.marked} picked={p.picked} />
              </details>
              )
            : null}
        </li>
      ))}
    </ol>
  )
}

export function OutlinePicker (p: {
  base: string
  outline: PageOutline
  picked: { watch: string[], ignore: string[] }
}) {
  const o = p.outline
  if (o.blocks.length === 0) {
    return <p class='card'>{o.note ?? 'Nothing to point at yet.'}</p>
  }
  const marked = churning(o.blocks)
  const often = marked.size
  return (
    <form method='get' action={`${p.base}#preview`} class='card' aria-labelledby='outline'>
      <p class='small'>
        The page as Sitewatch read it <time datetime={o.at ?? ''}>{o.at?.slice(0, 16).replace('T', ' ')}</time> UTC: tick what to <strong>watch only</strong> or
        to <strong>ignore</strong>, then preview. Nothing is saved until you save the settings.
        {often > 0 ? ` ${often} block${often === 1 ? '' : 's'}, marked at the left, moved twice or more in 30 days with no change marked important: ignoring ${often === 1 ? 'it' : 'them'} may quiet the page.` : ''}
      </p>
      <PictureWithBoxes base={p.base} outline={o} picked={p.picked} />
      <OutlineList blocks={o.blocks.map((b, i) => ({ b, n: i + 1 }))} marked={marked} picked={p.picked} />
      {o.truncated ? <p class='small muted'>The page has more blocks than these 400: write a selector in the settings for the rest.</p> : null}
      {/* In reach on a long page: the bar stays at the foot of the screen while the outline scrolls under it. */}
      <p class='outline-actions'><button type='submit'>Preview what will be compared</button> <span class='small muted'>then <a href='#settings'>save the page settings</a></span></p>
    </form>
  )
}

/** What the next check would compare with the picked rules, and what the last 30 days would have been. */
export function RulesPreviewView (p: { preview: RulesPreview }) {
  const { lines, totalLines, changes } = p.preview
  const shown = lines.slice(0, 80)
  return (
    <section id='preview' aria-labelledby='preview-title' class='card'>
      <h3 id='preview-title'>With these rules</h3>
      <p>
        {changes.considered === 0
          ? 'The page had no change in the last 30 days to try them on.'
          : <>Of its {changes.considered} change{changes.considered === 1 ? '' : 's'} of the last 30 days, <strong>{changes.kept}</strong> would still be reported as {changes.kept === 1 ? 'it was' : 'they were'}, <strong>{changes.changed}</strong> reported with part of {changes.changed === 1 ? 'it' : 'them'} left out, and <strong>{changes.muted}</strong> not reported.</>}
      </p>
      <p class='small'>The next check compares these {totalLines.toLocaleString('en')} line{totalLines === 1 ? '' : 's'}{totalLines > shown.length ? ` (the first ${shown.length} shown)` : ''}:</p>
      {totalLines === 0
        ? <p class='warn'>Nothing: the picks leave no text to compare. Every later check would find the page empty.</p>
        : (
          <VersionText lines={shown} class='version' headingsFrom={4} />
          )}
      <p class='small'>The picks are in the settings below, as selectors you can edit: <a href='#settings'>save the page settings</a> to use them from the next check, which records a new baseline.</p>
    </section>
  )
}
