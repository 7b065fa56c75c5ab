// The app's one stylesheet and its one script, served from memory under /app/static/.
// No build step: what is here is what the browser gets.

export const STYLESHEET = `
:root { color-scheme: light dark; --bg: #f7f7f5; --card: #fff; --text: #1d1d1f; --muted: #5f6368; --line: #dcdcd7;
  --accent: #1f5fbf; --accent-text: #fff; --low: #2e7d32; --medium: #8a6d00; --high: #c25400; --critical: #b3261e;
  --del: #fde2e1; --ins: #dcf5e3; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg: #151618; --card: #1f2023; --text: #ececec; --muted: #a5a8ad;
  --line: #393b40; --accent: #7fb0ff; --accent-text: #0b1a33; --low: #7ed787; --medium: #e7c94b; --high: #ffab70;
  --critical: #ff8a80; --del: #5c2320; --ins: #1e4a2b; } }
* { box-sizing: border-box }
/* The web's names (a 51-character host, a 100-character e-mail, a CamelCase path, a webhook's URL) break
   where they must on a phone, and nowhere else: anywhere lets a table or a flex row shrink to the screen. */
body { margin: 0; background: var(--bg); color: var(--text); line-height: 1.5; overflow-wrap: anywhere }
header.top > *, header.top .who > * { min-width: 0 }
input, select, textarea, button { max-width: 100% }
button { overflow-wrap: anywhere }
a { color: var(--accent) }
.skip { position: absolute; left: -999px }
.skip:focus { left: 1rem; top: 1rem; background: var(--card); padding: .5rem }
header.top { background: var(--card); border-bottom: 1px solid var(--line); padding: .5rem 1rem; display: flex;
  flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--text) }
header.top nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0; padding: 0 }
header.top nav a[aria-current] { font-weight: 700; text-decoration: none; color: var(--text) }
header.top .who { margin-left: auto; display: flex; gap: .5rem; align-items: center; flex-wrap: wrap }
main { max-width: 72rem; margin: 0 auto; padding: 1rem }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem } h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem }
/* A heading may be a page's whole address: it wraps where it must (a word breaks only when longer than the line). */
h1, h2, h3 { overflow-wrap: anywhere }
/* So may a link that shows an address ("https://docs.example.com/reference/pricing/plans" has no space to wrap at). */
main p a, main li a { overflow-wrap: anywhere }
/* An address or a host named in a sentence (an e-mail, a provider, a DNS name): it breaks where it must. */
.breakable, code { overflow-wrap: anywhere }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin-bottom: 1rem }
.card > :first-child, .card > div:first-child > p:first-child { margin-top: 0 }
.card > :last-child { margin-bottom: 0 }
table { width: 100%; border-collapse: collapse; background: var(--card) }
th, td { text-align: left; padding: .45rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top }
th { font-size: .85rem; color: var(--muted); font-weight: 600 }
.scroll { overflow-x: auto }
tr.moved th, tr.moved td { font-weight: 700; color: var(--text) }
summary { cursor: pointer; color: var(--accent) }
details[open] { min-width: 18rem }
form.inline { display: inline }
label { display: block; font-weight: 600; margin: .5rem 0 .25rem }
input, select, textarea { font: inherit; color: var(--text); background: var(--bg); border: 1px solid var(--line);
  border-radius: 6px; padding: .4rem .5rem; max-width: 100% }
input[type=checkbox] { width: 1.1rem; height: 1.1rem }
button { font: inherit; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
  color: var(--accent-text); padding: .4rem .9rem; cursor: pointer }
button.quiet { background: transparent; color: var(--accent) }
button.danger { background: #b3261e; border-color: #b3261e; color: #fff }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px }
.row { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end }
.row > * { min-width: 0; max-width: 100% }
.grow { flex: 1 1 16rem }
.grow input { width: 100% }
.muted { color: var(--muted) } .small { font-size: .85rem }
.notice { border-left: 4px solid var(--accent); padding: .5rem 1rem; background: var(--card); margin-bottom: 1rem;
  overflow-wrap: anywhere }
.error { border-left-color: var(--critical) }
.sev { display: inline-block; border-radius: 999px; padding: 0 .55rem; font-size: .8rem; font-weight: 700;
  border: 1px solid currentColor; white-space: nowrap }
.sev-low { color: var(--low) } .sev-medium { color: var(--medium) } .sev-high { color: var(--high) }
.sev-critical { color: var(--critical) }
ul.offers, ul.learned, ol.learned { overflow-wrap: anywhere }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .75rem 0; padding: .25rem .75rem .5rem }
legend { font-weight: 600 }
label.check { display: inline-flex; gap: .35rem; align-items: center; font-weight: 400; margin: .25rem 1rem .25rem 0 }
ul.offers { list-style: none; padding: 0 } ul.offers li { margin: .5rem 0 } ul.offers .row { align-items: center }
ul.tags { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem; margin: .25rem 0 0; padding: 0 }
ul.tags a { display: inline-block; border: 1px solid var(--line); border-radius: 999px; padding: 0 .55rem;
  font-size: .8rem; text-decoration: none }
del { background: var(--del); text-decoration: line-through } ins { background: var(--ins); text-decoration: none }
.diff { white-space: pre-wrap; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .9rem }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem }
@media (max-width: 700px) { .sides { grid-template-columns: 1fr } }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap }
.warn, .failure strong { color: var(--critical) }
.card.problem { border-left: 4px solid var(--critical) }
.results { list-style: none; padding: 0 } .results li { margin: .3rem 0; overflow-wrap: anywhere }
.result-added strong { color: var(--low) }
textarea, input[readonly], input.wide { width: 100% }
button:disabled { opacity: .5; cursor: not-allowed }
/* A cell breaks between words, an address after its slashes and dots (see Address); a word breaks only when it is
   wider than its column can be. */
td, th { overflow-wrap: break-word }
/* Narrow screens: a table's rows become cards, each cell with its column's name. */
@media (max-width: 640px) {
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100% }
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0) }
  table.stack tr { border: 1px solid var(--line); border-radius: 8px; margin-bottom: .5rem; padding: .25rem .5rem }
  table.stack td { border: 0; padding: .2rem 0 }
  table.stack td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: .85rem }
  table.stack td[data-label] { display: inline-block; width: auto; max-width: 100%; margin-right: 1rem }
  /* A cell that holds a form (a page's settings) takes the card's width: its fields are sized to it. */
  table.stack td[data-label]:has(form) { display: block; width: 100% }
  table.inbox td.select { float: right; width: auto }
  table.inbox td.summary a { display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical;
    overflow: hidden }
}
.passage { overflow-wrap: anywhere }
.passage .line { margin: .35rem 0 }
.line-removed { background: var(--del); text-decoration: line-through }
.line-added { background: var(--ins) }
.line-item::before { content: "• " }
.line-context { color: var(--muted) }
.gap { margin: 0 0 1rem; }
.gap summary { color: var(--muted); cursor: pointer }
.gap .unchanged { border-left: 3px solid var(--line); padding-left: .75rem; overflow-wrap: anywhere }
.edits ol { margin: .25rem 0 .5rem; padding-left: 1.5rem }
.inline-list { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .5rem }
.passage:target { outline: 3px solid var(--accent) }
.chart { margin: 0 0 1rem }
.price-chart { width: 100%; height: auto; max-height: 20rem }
.price-chart .axis { stroke: var(--muted); stroke-width: 1 }
.price-chart .tick { fill: var(--text); font-size: 12px }
.price-chart .series { fill: none; stroke: currentColor; stroke-width: 2.5 }
.price-chart .point { fill: currentColor }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem }
.swatch { display: inline-block; width: .9rem; height: .9rem; border-radius: 2px; vertical-align: middle;
  background: currentColor }
.s0 { color: var(--accent) } .s1 { color: var(--high) } .s2 { color: var(--low) } .s3 { color: var(--medium) }
.s4 { color: var(--critical) } .s5 { color: var(--muted) } .s6 { color: #7b61ff } .s7 { color: #00897b }
.timeline { padding-left: 1.25rem } .timeline li { margin: .3rem 0 }
.version { overflow-wrap: anywhere }
pre.document { max-height: 40rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .85rem }
.outline { list-style: none; padding: 0; margin: 0 }
.outline li { padding: .4rem 0; border-top: 1px solid var(--line); overflow-wrap: anywhere }
.outline .outline { padding-left: 1rem; margin-top: .3rem }
.outline-inside > summary { cursor: pointer; color: var(--muted); margin-top: .2rem }
.outline .churning { border-left: 3px solid var(--critical); padding-right: .25rem }
.outline-actions { position: sticky; bottom: 0; background: var(--card); border-top: 1px solid var(--line);
  padding: .5rem 0; margin-bottom: 0 }
.outline .picks { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: baseline; margin-top: .2rem }
.outline .selector { color: var(--muted); overflow-wrap: anywhere }
.outline-picture figure { position: relative; margin: .5rem 0; border: 1px solid var(--line) }
.outline-picture img { display: block; width: 100%; height: auto }
.outline-picture svg { position: absolute; inset: 0; width: 100%; height: 100% }
.outline-picture rect { fill: none; stroke: var(--accent); stroke-width: 2; vector-effect: non-scaling-stroke }
.outline-picture .depth-1 rect { stroke-dasharray: 6 4 } .outline-picture .depth-2 rect { stroke-opacity: .5 }
.outline-picture .watched rect { stroke: var(--low); stroke-width: 4; fill: var(--low); fill-opacity: .12 }
.outline-picture .ignored rect { stroke: var(--critical); stroke-width: 4; fill: var(--critical); fill-opacity: .12 }
.outline-picture text { fill: var(--accent); font: 600 20px system-ui, sans-serif; paint-order: stroke;
  stroke: var(--card); stroke-width: 4px }
.shots { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 1rem }
.shots img { width: 100%; border: 1px solid var(--line) }
.bar { width: 100%; height: .7rem; accent-color: var(--accent) }
.key { font-family: ui-monospace, monospace; word-break: break-all; background: var(--bg); padding: .5rem }
.pager { display: flex; gap: 1rem; margin-top: 1rem }
.auth { max-width: 24rem; margin: 3rem auto }
.brief-section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .25rem 1rem 1rem;
  margin-bottom: 1rem }
.brief dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 }
.brief dt { font-weight: 600 } .brief dd { margin: 0 }
@media (max-width: 30rem) { .brief dl { grid-template-columns: 1fr; gap: 0 } .brief dd { margin-bottom: .5rem } }
.brief h3 { font-size: 1rem; margin: 1rem 0 .25rem }
.brief caption { text-align: left; padding: .25rem 0 }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 0 1.5rem }
.sources { color: var(--muted); border-top: 1px solid var(--line); margin: 1rem 0 0; padding-top: .5rem;
  padding-left: 1.5rem }
a.ref { text-decoration: none; font-size: .75rem }
/* A brief printed (or saved as PDF): the report alone, black on white, each link's address written out. */
@media print {
  :root { color-scheme: light; --bg: #fff; --card: #fff; --text: #000; --muted: #444; --line: #bbb; --accent: #000;
    --low: #2e7d32; --medium: #8a6d00; --high: #c25400; --critical: #b3261e }
  header.top, .skip, .no-print, form, button { display: none !important }
  main { max-width: none; padding: 0 }
  body { font-size: 10.5pt }
  .brief-section { border: none; border-top: 1px solid var(--line); border-radius: 0; padding: 0; margin: 0 0 .75rem }
  h2, h3 { break-after: avoid } tr, li { break-inside: avoid }
  .scroll { overflow: visible }
  a { color: #000; text-decoration: none }
  .sources a::after { content: " (" attr(href) ")"; word-break: break-all }
  @page { margin: 16mm 14mm }
}
`

/**
 * Shows each <time datetime> in the reader's locale and time zone (the server knows neither),
 * and loads what a page showed before it was ready (see [data-load-from]).
 */
export const SCRIPT = `
const zone = document.querySelector('select[data-guess=browser]')
if (zone) {
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone
  if ([...zone.options].some(o => o.value === here)) zone.value = here
}
const shown = {
  date: { dateStyle: 'medium' },
  minute: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
  second: { hour: '2-digit', minute: '2-digit', second: '2-digit' }
}
const localize = root => {
  for (const t of root.querySelectorAll('time[datetime]')) {
    const d = new Date(t.getAttribute('datetime'))
    if (!isNaN(d)) t.textContent = d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
  }
  for (const t of root.querySelectorAll('text[data-at]')) {
    const d = new Date(t.getAttribute('data-at'))
    if (!isNaN(d)) t.textContent = d.toLocaleString(undefined, shown[t.getAttribute('data-show')] ?? shown.date)
  }
}
localize(document)
// Delegated: a button put in place later (a brief that was being built, see renew) prints too.
document.addEventListener('click', e => { if (e.target.closest?.('button[data-print]')) window.print() })
// A part of the page that was not ready when it was shown (a page's outline): the same page, asked to wait for it.
for (const slot of document.querySelectorAll('[data-load-from]')) {
  fetch(slot.getAttribute('data-load-from'), { credentials: 'same-origin' })
    .then(r => r.ok ? r.text() : Promise.reject(new Error(String(r.status))))
    .then(text => {
      const ready = new DOMParser().parseFromString(text, 'text/html').getElementById(slot.id)
      if (!ready || ready.hasAttribute('data-load-from')) return
      const part = document.importNode(ready, true)
      localize(part)
      slot.replaceWith(part)
    })
    .catch(() => {})
}
// A page still being built (see Document's liveEvery) asks for itself again, and puts in place
// each part marked data-live that moved, unless the reader is using it (a field focused or
// typed in, a <details> opened): that part waits for the next round.
const liveEvery = Number(document.body.dataset.liveEvery) * 1000
const inUse = part => part.contains(document.activeElement) ||
  [...part.querySelectorAll('details')].some(d => d.open) ||
  [...part.querySelectorAll('input, textarea, select')].some(f => f.type === 'checkbox' || f.type === 'radio'
    ? f.checked !== f.defaultChecked
    : f.tagName === 'SELECT' ? [...f.options].some(o => o.selected !== o.defaultSelected) : f.value !== f.defaultValue)
const renew = async () => {
  let next
  let retry = true // a page gone (4xx) is asked no more; a server or network that failed, again
  try {
    const r = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
    if (r.ok) next = new DOMParser().parseFromString(await r.text(), 'text/html')
    else retry = r.status >= 500
  } catch {}
  let waiting = next ? next.body.hasAttribute('data-live-every') : retry
  if (next?.title) document.title = next.title
  for (const part of next ? document.querySelectorAll('[data-live][id]') : []) {
    const fresh = next.getElementById(part.id)
    if (!fresh) continue
    localize(fresh)
    if (fresh.outerHTML === part.outerHTML) continue
    if (inUse(part)) waiting = true
    else part.replaceWith(document.importNode(fresh, true))
  }
  if (waiting) setTimeout(renew, liveEvery)
  else document.body.removeAttribute('data-live-every')
}
if (liveEvery > 0) setTimeout(renew, liveEvery)
`
