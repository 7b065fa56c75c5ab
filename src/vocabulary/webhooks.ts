import { Type, type Static } from '@sinclair/typebox'
import {
  AlertEventSchema, ChangeTypeSchema, ENDPOINT_KINDS, literals, Nullable, PageTypeSchema, SEVERITIES, TagSchema
} from './core.js'

// What a webhook or Slack destination is made of, in the API (POST and PATCH /api/webhooks)
// and in the app's form alike (web/form-check.ts).

const Uuid = Type.String({ format: 'uuid' })
const customRule = 'null: all; a custom alert rule'

/** Which events and changes a destination is sent: every field but the events needs custom alert rules. */
export const WebhookFilterFields = {
  events: Type.Optional(
    Type.Array(AlertEventSchema, { minItems: 1, uniqueItems: true, description: 'default: all events' })
  ),
  minSeverity: Type.Optional(literals(SEVERITIES, { description: 'default low (everything); a custom alert rule' })),
  changeTypes: Type.Optional(
    Type.Union([Type.Array(ChangeTypeSchema, { minItems: 1, uniqueItems: true }), Type.Null()], {
      description: customRule
    })
  ),
  domainIds: Type.Optional(
    Type.Union([Type.Array(Uuid, { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()], {
      description: customRule
    })
  ),
  pageTypes: Type.Optional(
    Type.Union([Type.Array(PageTypeSchema, { minItems: 1, uniqueItems: true }), Type.Null()], {
      description: customRule
    })
  ),
  tags: Type.Optional(
    Type.Union([Type.Array(TagSchema, { minItems: 1, maxItems: 20 }), Type.Null()], {
      description: `only changes of domains with one of these tags (an addition); ${customRule}`
    })
  )
}

const WebhookUrlSchema = Type.String({ minLength: 1, maxLength: 2048, examples: ['https://example.org/hooks/sitewatch'] })
const WebhookDescriptionSchema = Nullable(Type.String({ maxLength: 500 }))

export const WebhookCreateSchema = Type.Object(
  {
    url: WebhookUrlSchema,
    kind: Type.Optional(literals(ENDPOINT_KINDS, { description: 'default webhook' })),
    description: Type.Optional(WebhookDescriptionSchema),
    enabled: Type.Optional(Type.Boolean()),
    ...WebhookFilterFields
  },
  { additionalProperties: false }
)
export type WebhookCreate = Static<typeof WebhookCreateSchema>

export const WebhookPatchSchema = Type.Object(
  {
    url: Type.Optional(WebhookUrlSchema),
    description: Type.Optional(WebhookDescriptionSchema),
    enabled: Type.Optional(Type.Boolean()),
    ...WebhookFilterFields
  },
  { additionalProperties: false, minProperties: 1 }
)
