import { lineKey } from '../detection/detect.js'
import { parseLine } from '../vocabulary/lines.js'

// A features page's inventory, read from its snapshot's text (headings "## …", list items
// "- …"): grouped under the page's own headings, as the site groups them.

export interface FeatureGroup {
  name: string
  features: string[]
}

/** Longer than this, a line is a paragraph, not a feature's name. */
const MAX_FEATURE = 160
const MAX_PER_GROUP = 100

interface Line { level: number, text: string, item: boolean }

function parse (text: string): Line[] {
  const out: Line[] = []
  for (const raw of text.split('\n')) {
    const line = parseLine(raw)
    const text = line.text.trim()
    if (!text) continue
    if (line.kind === 'heading') out.push({ level: line.level!, text, item: false })
    else if (line.kind === 'item') out.push({ level: 0, text, item: true })
  }
  return out
}

const short = (s: string) => s.length <= MAX_FEATURE ? s : `${s.slice(0, MAX_FEATURE - 1)}…`

/**
 * The inventory: under each group heading (the shallowest level below the page's title
 * that has two or more headings), its sub-headings when it has any (feature cards), else
 * its list items. A page without such headings is one group of its list items.
 */
export function readFeatures (text: string): FeatureGroup[] {
  const lines = parse(text)
  const headings = lines.filter(l => !l.item)
  const counts = new Map<number, number>()
  for (const h of headings) counts.set(h.level, (counts.get(h.level) ?? 0) + 1)
  const levels = [...counts.keys()].sort((a, b) => a - b)
  const top = levels.find(l => l > 1 && counts.get(l)! >= 2) ?? levels.find(l => counts.get(l)! >= 2)
  const title = headings.find(h => h.level === 1)?.text ?? 'Features'
  if (top === undefined) return finish([{ name: title, features: lines.filter(l => l.item).map(l => l.text) }])
  const groups: Array<FeatureGroup & { cards: string[], items: string[] }> = []
  let current: (typeof groups)[number] | undefined
  let cardLevel: number | undefined
  for (const line of lines) {
    if (!line.item && line.level <= top) {
      current = line.level === top ? { name: line.text, features: [], cards: [], items: [] } : undefined
      if (current) groups.push(current)
      cardLevel = undefined
    } else if (current && !line.item) {
      cardLevel ??= line.level
      if (line.level === cardLevel) current.cards.push(line.text)
    } else if (current && line.item && cardLevel === undefined) {
      current.items.push(line.text)
    }
  }
  const read = groups.map(g => ({ name: g.name, features: g.cards.length > 0 ? g.cards : g.items }))
  // Headings that are themselves the features (cards with a paragraph each, no groups).
  if (read.every(g => g.features.length === 0)) return finish([{ name: title, features: groups.map(g => g.name) }])
  return finish(read)
}

function finish (groups: FeatureGroup[]): FeatureGroup[] {
  const seen = new Set<string>()
  return groups
    .map(g => ({
      name: short(g.name),
      features: g.features.map(short).filter(f => {
        const key = lineKey(f)
        if (key === '' || seen.has(key)) return false
        seen.add(key)
        return true
      }).slice(0, MAX_PER_GROUP)
    }))
    .filter(g => g.features.length > 0)
}

/** What one inventory has that the other has not (by their words, whatever their group). */
export function featureMoves (before: FeatureGroup[], after: FeatureGroup[]) {
  const keyed = (groups: FeatureGroup[]) =>
    new Map(groups.flatMap(g => g.features.map(f => [lineKey(f), { feature: f, group: g.name }] as const)))
  const was = keyed(before)
  const now = keyed(after)
  return {
    added: [...now].filter(([k]) => !was.has(k)).map(([, v]) => v),
    removed: [...was].filter(([k]) => !now.has(k)).map(([, v]) => v)
  }
}
