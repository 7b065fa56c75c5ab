import { Type, type Static } from '@sinclair/typebox'
import { literals } from './schema.js'

// What a change holds besides its type, weight and words: its diff, the facts it was
// judged by, and what the structured readers read (a pricing page's plans, a changelog's
// entry, an API description's operations). Part of the vocabulary (see core.ts).

/** What kind of edit a passage is (see detection's edit kinds): substantive, or one of the trivial kinds. */
export const EDIT_KINDS = ['substantive', 'last_updated', 'renumbering', 'typography', 'spelling'] as const
export type EditKind = typeof EDIT_KINDS[number]

export const PassageSchema = Type.Object({
  kind: literals(EDIT_KINDS),
  counts: Type.Record(Type.String(), Type.Integer(), { description: 'its edits by kind' }),
  updatedOn: Type.Optional(Type.String({ description: 'the date of last update it gives the page (YYYY-MM-DD)' })),
  section: Type.Optional(literals(['added', 'removed'] as const, { description: 'a section added or removed whole' })),
  under: Type.Optional(Type.String({ description: 'the heading above it, on the page as it now reads' })),
  headline: Type.String({ description: 'what the list of edits calls it' })
}, { description: 'one passage of a change (a block of changed lines), as it was read when the change was found' })
export type Passage = Static<typeof PassageSchema>

export const DIFF_LINE_TYPES = ['context', 'deletion', 'addition'] as const

/** What a price is when it is not the plan's own price: a fee paid once to set up, a term's total, an add-on's. */
export const PRICE_CHARGES = ['setup', 'total', 'addon'] as const
const chargeSchema = () => Type.Optional(literals(PRICE_CHARGES, {
  description: 'what the price is when it is not the plan\'s own price (its words or its column say so): a setup ' +
    'fee, a term\'s total, an add-on\'s price; absent for the plan\'s price. A price is compared only with a price ' +
    'of its own charge'
}))

/** A price as a pricing page states it. */
export const PlanPriceSchema = Type.Object({
  amount: Type.Number(),
  currency: Type.String({ description: 'a symbol or ISO code as written: $, €, £, CHF…' }),
  period: Type.String({
    description: 'what it is per: month, year, hour, user/month, GB, GB-month, 1,000 requests…; ' +
      'empty for a one-off price'
  }),
  billing: Type.Optional(Type.String({
    description: 'the toggle state it is shown under, when the page has one: monthly or yearly'
  })),
  label: Type.Optional(Type.String({
    description: 'the column it stands in, when a plan has several prices of one kind (e.g. "Setup fee" and ' +
      '"Billed"): each is compared with its own'
  })),
  charge: chargeSchema(),
  text: Type.String({ description: 'as summaries write it, e.g. $49/month' })
})
export type PlanPrice = Static<typeof PlanPriceSchema>

export const PricingPlanSchema = Type.Object({
  name: Type.String({
    description: 'as the page writes it; a plan (or priced item of a usage table) whose name two price tables share ' +
      'is named with its section, e.g. "Support plans – Basic"'
  }),
  prices: Type.Array(PlanPriceSchema),
  note: Type.Optional(Type.String({ description: 'a tax or billing note, e.g. "billed annually, excl. VAT"' })),
  limits: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }), {
    description: 'headline limits, e.g. {name: "users", value: "10"}'
  }),
  features: Type.Array(Type.String(), { description: "the plan's listed features, as written" })
})
export type PricingPlan = Static<typeof PricingPlanSchema>

export const PRICING_SOURCES = ['json-ld', 'microdata', 'cards', 'table', 'list'] as const
export const PricingTableSchema = Type.Object({
  plans: Type.Array(PricingPlanSchema),
  sources: Type.Array(literals(PRICING_SOURCES), { description: 'where the plans were read, in that order' })
}, { description: "a pricing page's plans as a structure" })
export type PricingTable = Static<typeof PricingTableSchema>

export const PRICING_CHANGE_KINDS = [
  'price_up', 'price_down', 'plan_added', 'plan_removed', 'limit_changed', 'feature_added', 'feature_removed',
  'feature_moved'
] as const
export const PricingChangeSchema = Type.Object({
  kind: literals(PRICING_CHANGE_KINDS),
  summary: Type.String({ description: 'e.g. "Pro: $49/month → $59/month (+20%)"' }),
  plan: Type.Optional(Type.String({
    description: 'the plan, and for a price that is not the plan\'s own (see `charge`), what the page calls it: ' +
      '"Cloud VDS S – Setup fee"'
  })),
  charge: chargeSchema(),
  before: Type.Optional(Type.String({ description: 'the price or limit before, as written in the summary' })),
  after: Type.Optional(Type.String()),
  percent: Type.Optional(Type.Number({
    description: 'a price or limit move, in percent of the old value; a price only against the same plan\'s price ' +
      'in the same currency and period'
  })),
  limit: Type.Optional(Type.String({ description: "the limit's name" })),
  feature: Type.Optional(Type.String()),
  fromPlans: Type.Optional(Type.Array(Type.String(), { description: 'a moved feature: the plans that listed it' })),
  toPlans: Type.Optional(Type.Array(Type.String(), { description: 'a moved feature: the plans that list it now' }))
})
export type PricingChange = Static<typeof PricingChangeSchema>

/** A changelog's entry as the page writes it. */
export const ChangelogEntrySchema = Type.Object({
  version: Type.Optional(Type.String({ description: 'e.g. 2.4.0' })),
  date: Type.Optional(Type.String({ description: 'YYYY-MM-DD when the page writes a date we can read' })),
  title: Type.String(),
  items: Type.Array(Type.String(), { description: "the entry's items, each with its section (\"Removed: …\") if any" }),
  unreleased: Type.Optional(Type.Boolean({
    description: 'an entry not yet released (Keep a Changelog\'s [Unreleased])'
  }))
}, { description: "an intelligence changelog page's entry: a new one, or an old one edited" })
export type ChangelogEntry = Static<typeof ChangelogEntrySchema>

export const ApiChangeSchema = Type.Object({
  method: Type.String({ description: 'GET, POST…' }),
  path: Type.String({ description: 'as the description writes it, e.g. /v1/invoices/{id}' }),
  change: Type.String({ description: 'what changed, e.g. "removed", "required request field `tag` added"' })
})
export type ApiChange = Static<typeof ApiChangeSchema>

export const ApiDiffSchema = Type.Object({
  breaking: Type.Array(ApiChangeSchema, {
    description: 'operations or success statuses removed, required parameters or request fields added or made ' +
      'required (nested ones too), response fields removed, types changed (the response body\'s own: array ↔ ' +
      'object), request enum values removed'
  }),
  nonBreaking: Type.Array(ApiChangeSchema, { description: 'operations, optional fields and parameters added' }),
  deprecated: Type.Array(ApiChangeSchema)
}, {
  description: "an intelligence api_docs page's OpenAPI 3.x or Swagger 2.0 description, compared operation by operation"
})
export type ApiDiff = Static<typeof ApiDiffSchema>

/**
 * What a check found, one fact at a time (see facts.ts, whose one table turns a fact into
 * a change type and a severity): the text comparison and every structured reader say
 * what they found this way.
 */
export const FACT_KINDS = [
  // Money: a price of one plan moved (`percent` when its currency and period compare), came or went.
  'price_up', 'price_down', 'price_changed', 'price_added', 'price_removed',
  // Plans, whole: `priced` when a price came or went with it.
  'plan_added', 'plan_removed',
  // What a plan allows ("10 GB", "unlimited users"): `percent` when both sides are numbers.
  'limit_raised', 'limit_lowered',
  // Features: items, cards, comparison rows; `moved` between plans.
  'feature_added', 'feature_removed', 'feature_moved',
  // A section (a heading and its lines) added or removed whole.
  'section_added', 'section_removed',
  // An API description's contract.
  'operation_added', 'operation_removed', 'api_breaking', 'api_deprecated', 'api_described',
  // A changelog's entry: new (weighed by its words), or an old one edited.
  'release_added', 'release_edited',
  // Words: an edit of text (`lines`, `words`; `legalWords` when it speaks of rights, data, liability…).
  'text_edit',
  // Edits that change nothing a reader acts on: a date of revision alone, or a renumbering, typography, spelling.
  'revision_date_changed', 'trivial_edit',
  // The page's picture, when its text did not move (`percent` of pixels).
  'visual_change'
] as const
export type FactKind = (typeof FACT_KINDS)[number]

/**
 * What a fact is about, by kind, as a person mutes it ("price moves of Cloud VPS 10"):
 * the facts of one subject a page's `ignoreFacts` can leave out.
 */
export const FACT_SUBJECTS = ['price', 'plan', 'limit', 'feature', 'section', 'operation', 'release'] as const
export type FactSubject = (typeof FACT_SUBJECTS)[number]
export const FACT_SUBJECT_OF: Readonly<Partial<Record<FactKind, FactSubject>>> = {
  price_up: 'price',
  price_down: 'price',
  price_changed: 'price',
  price_added: 'price',
  price_removed: 'price',
  plan_added: 'plan',
  plan_removed: 'plan',
  limit_raised: 'limit',
  limit_lowered: 'limit',
  feature_added: 'feature',
  feature_removed: 'feature',
  feature_moved: 'feature',
  section_added: 'section',
  section_removed: 'section',
  operation_added: 'operation',
  operation_removed: 'operation',
  api_breaking: 'operation',
  api_deprecated: 'operation',
  release_added: 'release',
  release_edited: 'release'
}

export const IgnoredFactSchema = Type.Object({
  kind: literals(FACT_SUBJECTS, { description: 'what the facts are about' }),
  subject: Type.String({ minLength: 1, maxLength: 200, description: 'as the page names it (a plan, a limit…)' })
}, {
  additionalProperties: false,
  description: 'facts of one subject left out: "price moves of Cloud VPS 10" is { "kind": "price", "subject": ' +
    '"Cloud VPS 10" }'
})
export type IgnoredFact = Static<typeof IgnoredFactSchema>

export const RELEASE_WEIGHTS = ['breaking', 'removal', 'deprecation', 'plain'] as const

export const FactSchema = Type.Object({
  kind: literals(FACT_KINDS),
  subject: Type.Optional(Type.String({
    description: 'what it is about, as the page names it: a plan, a section, an operation, a limit, an entry'
  })),
  before: Type.Optional(Type.String({ description: 'the value before, as written (a price, a limit)' })),
  after: Type.Optional(Type.String({ description: 'the value after, as written' })),
  percent: Type.Optional(Type.Number({ description: 'the move in percent, where the two sides compare' })),
  priced: Type.Optional(Type.Boolean({ description: 'a plan that came or went had a price' })),
  charge: chargeSchema(),
  lines: Type.Optional(Type.Integer({ description: 'text edits: changed lines' })),
  words: Type.Optional(Type.Integer({ description: 'text edits: words added or removed' })),
  legalWords: Type.Optional(Type.Boolean({ description: 'the edit speaks of rights, data, liability, fees…' })),
  quantities: Type.Optional(Type.Boolean({
    description: 'a legal text\'s edit changes a quantity it states: a duration, a percentage, an amount'
  })),
  narrows: Type.Optional(Type.Boolean({
    description: 'a legal text\'s edit takes away what a sentence granted: what a plan includes, what a free ' +
      'tier or a user may do'
  })),
  release: Type.Optional(literals(RELEASE_WEIGHTS, {
    description: 'a changelog entry: what its words say it is (breaking, removal, deprecation, plain)'
  })),
  adds: Type.Optional(Type.Boolean({ description: 'a changelog entry adds something' }))
}, { description: 'one thing a check found; the first of a change\'s facts leads it' })
export type Fact = Static<typeof FactSchema>
export type ReleaseWeight = (typeof RELEASE_WEIGHTS)[number]

export const DiffDataSchema = Type.Object(
  {
    before: Type.String({
      description: 'the change\'s passages as they read before it: each changed line removed, with the unchanged ' +
        'lines around it, passages in page order joined by a line "…"; at most 2,000 characters (every changed ' +
        'line is in `hunks`)'
    }),
    after: Type.String({ description: 'the same passages as they read after it (see `before`)' }),
    stats: Type.Object({ additions: Type.Integer(), deletions: Type.Integer(), changes: Type.Integer() }),
    hunks: Type.Array(
      Type.Object({
        oldStart: Type.Integer(),
        oldLines: Type.Integer(),
        newStart: Type.Integer(),
        newLines: Type.Integer(),
        lines: Type.Array(Type.Object({ type: literals(DIFF_LINE_TYPES), content: Type.String() }))
      }),
      {
        description: 'always present, with every changed line of the change (before and after are bounded ' +
        'passages); empty only when the change has no line diff'
      }
    ),
    pricing: Type.Optional(
      Type.Object(
        {
          before: PricingTableSchema,
          after: PricingTableSchema,
          changes: Type.Array(PricingChangeSchema, { description: 'what moved, plan by plan; this change\'s part' })
        },
        {
          description: "an intelligence pricing page's plans read as a table (JSON-LD or microdata, plan cards, " +
            'comparison tables, both states of a monthly/yearly toggle), before and after'
        }
      )
    ),
    edits: Type.Optional(Type.Object({
      kinds: Type.Record(Type.String(), Type.Integer(), {
        description: 'how many edits of each kind the change holds: substantive (passages that change what the ' +
          'text says), renumbering (section or reference numbers), typography (quotes, dashes, spaces, case), ' +
          'spelling (a variant or a typo fixed), last_updated (the date of last update)'
      }),
      updatedOn: Type.Optional(Type.String({ description: 'the date of last update the page now gives (YYYY-MM-DD)' }))
    }, { description: "the change's edits by kind: trivial ones never lead its summary nor raise its severity" })),
    passages: Type.Optional(Type.Array(PassageSchema, {
      description: 'each passage of the change, in the order of `hunks` split at their unchanged lines, as it was ' +
        'read when the change was found: the change\'s page shows these (absent on changes found before it was kept)'
    })),
    changelog: Type.Optional(ChangelogEntrySchema),
    api: Type.Optional(ApiDiffSchema),
    facts: Type.Optional(Type.Array(FactSchema, {
      description: 'what the check found, one fact each (a price up 30 % on Pro, an operation removed, a section ' +
        'added…), the one that leads the change first: its type and severity are that fact\'s'
    })),
    visual: Type.Optional(
      Type.Object(
        {
          changedPercent: Type.Number({ description: "share of the page's pixels that changed, 0–100" }),
          regions: Type.Array(
            Type.Object({ x: Type.Integer(), y: Type.Integer(), width: Type.Integer(), height: Type.Integer() }),
            { description: 'boxes around the changed areas, in page pixels, largest first' }
          )
        },
        {
          description: 'pages with screenshots: how the page looks different between the two snapshots; the ' +
            'images are at /api/changes/{id}/images/{before,after,diff}'
        }
      )
    )
  },
  { $id: 'DiffData', title: 'DiffData' }
)
/** A change's diff: jsdiff's structuredPatch hunks, with the text as the page shows it. */
export type DiffData = Static<typeof DiffDataSchema>
export type DiffHunk = DiffData['hunks'][number]
