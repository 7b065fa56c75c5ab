import { Type, type Static } from '@sinclair/typebox'
import { NoiseRulesSchema, PageTypeSchema, RenderModeSchema } from './core.js'

// What people change of a watched page, in the API (PATCH /api/domains/{id}/pages/{pageId})
// and in the app's form alike (web/form-check.ts).

/** A name people give a page: shown in its place wherever the page is (the app, alerts), its address beside it. */
export const PageNameSchema = Type.String({
  minLength: 1,
  maxLength: 120,
  pattern: '\\S',
  description: 'a name people give the page ("Cloud VPS prices"), trimmed; 1 to 120 characters',
  examples: ['Cloud VPS prices']
})

export const PagePatchSchema = Type.Object({
  name: Type.Optional(Type.Union([PageNameSchema, Type.Null()], {
    description: 'a name for the page, shown in its place wherever it is; null: none (its address)'
  })),
  monitoringEnabled: Type.Optional(Type.Boolean()),
  pageType: Type.Optional(PageTypeSchema),
  priority: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10,
      description: '1 (first) to 10, 5 by default: lower numbers are crawled first and become the ' +
        "domain's intelligence pages first"
    })
  ),
  noiseRules: Type.Optional(Type.Ref(NoiseRulesSchema)),
  render: Type.Optional(
    Type.Union([RenderModeSchema, Type.Null()], {
      description: 'auto (fetch plainly, use the browser when the page needs it), always or never; ' +
        "null: the domain's setting"
    })
  ),
  screenshots: Type.Optional(Type.Boolean({
    description: 'keep screenshots of the page: its first, then one with each change (the page is then ' +
      'rendered in the browser); taken ' +
      'only while the page is one of its domain\'s intelligence pages'
  })),
  visualThreshold: Type.Optional(Type.Union([Type.Number({ minimum: 0.01, maximum: 100 }), Type.Null()], {
    description: 'report a change seen only in the screenshots when at least this percentage of the page ' +
      'changed; null (default): the pictures are evidence attached to changes found in the text'
  }))
}, { additionalProperties: false, minProperties: 1 })
export type PagePatch = Static<typeof PagePatchSchema>
