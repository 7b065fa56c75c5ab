import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { literals } from './schema.js'

const orNull = <T extends TSchema>(schema: T, options: { description: string }) =>
  Type.Union([schema, Type.Null()], options)

// A page's outline: its blocks as Sitewatch reads them, each with a selector a person can
// tick to watch only or to ignore, and how often it moved; and the preview of a page's
// rules before they are saved.

export const OUTLINE_KINDS = ['section', 'card', 'heading', 'paragraph', 'list', 'table', 'block'] as const
export type OutlineKind = typeof OUTLINE_KINDS[number]

/**
 * Where a picture's blocks are: each element's box in CSS pixels of the picture, keyed by
 * its path from <html> (the indexes of its element children, "0.1.3": the fourth element
 * of <body>), as the browser laid the page out when it took the picture.
 */
export type PictureBoxes = Record<string, [x: number, y: number, width: number, height: number]>

/** How many days of a page's versions its churn and a preview's counts look back. */
export const OUTLINE_DAYS = 30

export const BlockChurnSchema = Type.Object({
  moves: Type.Integer({ minimum: 0, description: 'how many of the versions of the last 30 days moved its text' }),
  reported: Type.Integer({
    minimum: 0,
    description: 'how many of those moves a recorded change was of: the change recorded at that check changed ' +
      'lines of this block (a change of another part of the page, at the same check, does not count)'
  }),
  important: Type.Boolean({ description: 'whether a person marked one of those changes important or pinned it' })
}, { description: 'How often the block moved in the page\'s versions of the last 30 days (at most 30 versions)' })

export const OutlineBlockSchema = Type.Object({
  selector: Type.String({
    description: 'selects this block alone in the page\'s last version: an id, a landmark or a heading ' +
      '(`:heading()`, ' +
      '`:section()`) before a class name, a class name before a position'
  }),
  kind: literals(OUTLINE_KINDS, { description: 'section, card, heading, paragraph, list, table or block' }),
  depth: Type.Integer({ minimum: 0, description: 'how deep it is among the outline\'s blocks: 0 at the top' }),
  text: Type.String({ description: 'its first words, as compared (at most 160 characters)' }),
  lines: Type.Integer({ minimum: 0, description: 'how many lines of compared text it holds' }),
  box: orNull(Type.Object({
    x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number()
  }), { description: 'where it is on the page\'s picture, in CSS pixels; null: not known' }),
  churn: BlockChurnSchema
})
export type OutlineBlock = Static<typeof OutlineBlockSchema>

export const PageOutlineSchema = Type.Object({
  snapshotId: orNull(Type.String({ format: 'uuid' }), { description: 'the version read; null: none yet' }),
  at: orNull(Type.String({ format: 'date-time' }), { description: 'when that version was read' }),
  picture: orNull(Type.Object({
    snapshotId: Type.String({ format: 'uuid', description: 'the version the picture was taken with' }),
    width: Type.Integer(),
    height: Type.Integer()
  }), {
    description: 'the picture the blocks\' boxes are on (the page\'s screenshot as of that version, read at ' +
      '`…/snapshots/{snapshotId}/screenshot`); null: the page has no picture with its blocks\' places'
  }),
  versions: Type.Integer({ minimum: 0, description: 'how many versions of the last 30 days the churn was read from' }),
  truncated: Type.Boolean({ description: 'the page has more blocks than the outline shows (400)' }),
  note: orNull(Type.String(), { description: 'why the outline is empty or partial, in words' }),
  blocks: Type.Array(OutlineBlockSchema)
}, { $id: 'PageOutline', title: 'PageOutline' })
export type PageOutline = Static<typeof PageOutlineSchema>

export const RulesPreviewSchema = Type.Object({
  snapshotId: orNull(Type.String({ format: 'uuid' }), { description: 'the version read; null: none yet' }),
  lines: Type.Array(Type.String(), {
    description: 'the text the next check will compare with these rules, read from the last version ' +
      '(the first 500 lines)'
  }),
  totalLines: Type.Integer({ minimum: 0 }),
  changes: Type.Object({
    considered: Type.Integer({ minimum: 0, description: 'the page\'s changes of the last 30 days (at most 30)' }),
    kept: Type.Integer({ minimum: 0, description: 'still a change, reading the same lines' }),
    changed: Type.Integer({ minimum: 0, description: 'still a change, reading other lines (some of it left out)' }),
    muted: Type.Integer({ minimum: 0, description: 'no change with these rules' })
  }, {
    description: 'what the last 30 days\' changes of the page would have been with these rules (selectors and ' +
    'patterns; facts left out and learned rules aside)'
  })
}, { $id: 'RulesPreview', title: 'RulesPreview' })
export type RulesPreview = Static<typeof RulesPreviewSchema>
