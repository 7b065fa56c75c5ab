import { Type } from '@sinclair/typebox'
import { LEARNED_KINDS } from '../vocabulary/learned.js'
import { RULE_ACTIONS, RuleMatchSchema } from '../vocabulary/alert-rules.js'
import {
  AlertEventSchema, ChangeTypeSchema, DELIVERY_STATUSES, EMAIL_DELIVERY_STATUSES, EndpointKindSchema, IgnoredFactSchema,
  literals, MailModeSchema, Nullable, PAGE_EVENT_KINDS, PageTypeSchema, SEVERITIES, SeveritySchema
} from '../vocabulary/core.js'
import { DateTime, Uuid } from './schemas.js'

// The schemas of alerting's resources: destinations and deliveries, e-mail alerts, what
// feedback taught, page events and alert rules (see schemas.ts for the rest).

export const WebhookEndpoint = Type.Object(
  {
    id: Uuid,
    kind: EndpointKindSchema,
    url: Type.String(),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    events: Type.Array(AlertEventSchema),
    minSeverity: SeveritySchema,
    changeTypes: Nullable(Type.Array(ChangeTypeSchema)),
    domainIds: Nullable(Type.Array(Uuid)),
    pageTypes: Nullable(Type.Array(PageTypeSchema)),
    tags: Nullable(Type.Array(Type.String(), { description: 'only changes of domains with one of these tags' })),
    createdAt: DateTime,
    updatedAt: DateTime
  },
  { $id: 'WebhookEndpoint', title: 'WebhookEndpoint' }
)

export const CreatedWebhookEndpoint = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: 'the signing secret, shown only here' })
  },
  { $id: 'CreatedWebhookEndpoint', title: 'CreatedWebhookEndpoint' }
)

export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    endpointId: Uuid,
    eventType: Type.String({ description: 'change.detected, job.failed, changes.digest or webhook.test' }),
    eventId: Type.String(),
    status: literals(DELIVERY_STATUSES),
    attempts: Type.Integer(),
    responseStatus: Nullable(Type.Integer()),
    durationMs: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    createdAt: DateTime,
    lastAttemptAt: Nullable(DateTime),
    deliveredAt: Nullable(DateTime)
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery' }
)

const CUSTOM_RULE = 'null: all; enterprise (custom alert rules)'

export const MailSettings = Type.Object(
  {
    userId: Uuid,
    email: Type.String(),
    mode: { ...MailModeSchema, description: 'realtime (each change as it is found), daily or weekly digest, or off' },
    minSeverity: literals(SEVERITIES),
    changeTypes: Type.Union([Type.Array(ChangeTypeSchema), Type.Null()], { description: CUSTOM_RULE }),
    domainIds: Type.Union([Type.Array(Uuid), Type.Null()], { description: CUSTOM_RULE }),
    pageTypes: Type.Union([Type.Array(PageTypeSchema), Type.Null()], { description: CUSTOM_RULE }),
    tags: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: `only changes of domains with one of these tags (an addition); ${CUSTOM_RULE}`
    }),
    timeZone: Type.String({ description: 'IANA time zone of the digest hour', examples: ['Europe/Paris'] }),
    hour: Type.Integer({ minimum: 0, maximum: 23, description: 'local hour a digest is sent at' }),
    weekday: Type.Integer({ minimum: 0, maximum: 6, description: 'local day of a weekly digest, 0 = Sunday' }),
    chosen: Type.Boolean({ description: "false: the plan's default (realtime on trial and pro, daily on starter)" }),
    pausedReason: Nullable(Type.String({ description: 'why alerts are paused (an address that keeps bouncing)' }))
  },
  { $id: 'MailSettings', title: 'MailSettings' }
)

export const EmailDelivery = Type.Object(
  {
    id: Uuid,
    userId: Uuid,
    to: Type.String(),
    kind: literals(['change', 'digest'] as const),
    subject: Type.String(),
    status: literals(EMAIL_DELIVERY_STATUSES, {
      description: 'not_sent: SMTP_URL is not set, so the message was only written to the server\'s log'
    }),
    attempts: Type.Integer(),
    smtpResponse: Nullable(Type.String({ description: "the SMTP server's last answer" })),
    error: Nullable(Type.String()),
    createdAt: DateTime,
    lastAttemptAt: Nullable(DateTime),
    deliveredAt: Nullable(DateTime)
  },
  { $id: 'EmailDelivery', title: 'EmailDelivery' }
)

/** A rule learned from a person's verdict on a change (POST /api/changes/:id/feedback). */
export const LearnedRule = Type.Object({
  id: Uuid,
  pageId: Uuid,
  domainId: Uuid,
  url: Type.String({ description: "the page's address" }),
  kind: literals(LEARNED_KINDS, {
    description: "mute: `pattern` was added to the page's ignorePatterns, or `fact` to its ignoreFacts; lower: " +
      'later changes of `changeType` on the page are recorded as low; raise: as high at least'
  }),
  pattern: Nullable(Type.String()),
  fact: Nullable(IgnoredFactSchema),
  changeType: Nullable(ChangeTypeSchema),
  fromChangeId: Nullable(Type.String({ description: 'the change it was learned from (null once deleted)' })),
  createdBy: Nullable(Type.String({ description: "who taught it: a person's e-mail or an API key's id" })),
  createdAt: DateTime
}, { $id: 'LearnedRule', title: 'LearnedRule' })

/** A page found that was not watched, or a watched page gone (GET /api/page-events, webhooks page.*). */
export const PageEvent = Type.Object({
  id: Uuid,
  domainId: Uuid,
  domain: Type.String({ description: "the domain's hostname" }),
  pageId: Nullable(Uuid),
  kind: literals(PAGE_EVENT_KINDS, { description: 'discovered: found and not watched before; removed: gone' }),
  url: Type.String(),
  pageType: PageTypeSchema,
  watched: Type.Boolean({
    description: 'discovered: whether it was added to monitoring (a type that matters, ' +
    'within the plan); removed: whether it was monitored'
  }),
  reason: Nullable(Type.String({
    description: 'removed: why (what it has answered since when, or that it left the sitemap)'
  })),
  sitemapLastmod: Type.Union([DateTime, Type.Null()], { description: "discovered: its sitemap's <lastmod>" }),
  createdAt: DateTime
}, { $id: 'PageEvent', title: 'PageEvent' })

/** A rule people write of what becomes of the changes it matches (GET /api/alert-rules). */
export const AlertRule = Type.Object({
  id: Uuid,
  name: Type.String(),
  position: Type.Integer({ description: 'its place: the first enabled rule that matches decides' }),
  match: RuleMatchSchema,
  action: literals(RULE_ACTIONS),
  enabled: Type.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime
}, { $id: 'AlertRule', title: 'AlertRule' })

/** The shared schemas of alerting, registered beside SHARED_SCHEMAS. */
export const ALERT_SCHEMAS = [
  WebhookEndpoint,
  CreatedWebhookEndpoint,
  WebhookDelivery,
  MailSettings,
  EmailDelivery,
  LearnedRule,
  PageEvent,
  AlertRule
]
