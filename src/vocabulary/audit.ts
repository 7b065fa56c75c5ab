import { Type, type Static } from '@sinclair/typebox'
import { literals, Nullable } from './schema.js'

// The audit log's words: who acts, and what they did to which object. One ordered table
// names every action; the app's filter and the API's schema are made from it.

export const ACTOR_KINDS = ['user', 'api_key', 'operator', 'anonymous'] as const
export const ActorKindSchema = literals(ACTOR_KINDS, {
  description: 'user: a person in the app; api_key: a call with a key; operator: the admin API; anonymous: a ' +
    'sign-in or link not (yet) tied to a person'
})
export type ActorKind = Static<typeof ActorKindSchema>

/** Who does what a request does: set once the request's caller is known (see store/urgency.ts). */
export interface Actor {
  kind: ActorKind
  userId?: string
  keyId?: string
  /** What the log shows of them: an address, a key's name or prefix, "operator". */
  label: string
}

/** Each action the log records: its name, the kind of object it acts on, and how the app says it. */
export const AUDIT_ACTIONS = [
  ['org.created', 'org', 'created the organisation'],
  ['org.updated', 'org', 'changed the organisation'],
  ['org.deleted', 'org', 'deleted the organisation'],
  ['plan.changed', 'org', 'changed the plan'],
  ['share_links.changed', 'org', 'turned share links on or off'],
  ['sso.changed', 'org', 'changed single sign-on'],
  ['sso.domain_checked', 'org', 'looked for a domain\'s proof'],
  ['sso.domain_verified', 'org', 'proved a single sign-on domain'],
  ['sso.domain_lost', 'org', 'lost a single sign-on domain\'s proof'],
  ['sso.identity_linked', 'member', 'linked a provider identity to an account'],
  ['sso.sessions_ended', 'org', 'ended the sessions of a removed identity provider'],
  ['data.exported', 'org', 'exported as CSV'],
  ['domain.created', 'domain', 'added a domain'],
  ['domain.updated', 'domain', 'changed a domain'],
  ['domain.deleted', 'domain', 'deleted a domain'],
  ['domain.discovery_requested', 'domain', 'ran discovery'],
  ['domain.crawl_requested', 'domain', 'checked a domain now'],
  ['research.requested', 'domain', 'asked for a research brief'],
  ['page.added', 'page', 'added a page'],
  ['page.updated', 'page', 'changed a page\'s settings'],
  ['page.deleted', 'page', 'deleted a page'],
  ['page.crawl_requested', 'page', 'checked a page now'],
  ['change.acknowledged', 'change', 'acknowledged a change'],
  ['change.unacknowledged', 'change', 'marked a change as new'],
  ['change.feedback', 'change', 'gave feedback on a change'],
  ['change.shared', 'change', 'made a share link'],
  ['share_link.revoked', 'change', 'revoked a share link'],
  ['learned_rule.created', 'learned_rule', 'taught a rule'],
  ['learned_rule.deleted', 'learned_rule', 'removed a taught rule'],
  ['alert_rule.created', 'alert_rule', 'added an alert rule'],
  ['alert_rule.updated', 'alert_rule', 'changed an alert rule'],
  ['alert_rule.deleted', 'alert_rule', 'deleted an alert rule'],
  ['webhook.created', 'webhook', 'added a webhook or Slack destination'],
  ['webhook.updated', 'webhook', 'changed a webhook or Slack destination'],
  ['webhook.deleted', 'webhook', 'deleted a webhook or Slack destination'],
  ['webhook.tested', 'webhook', 'sent a test event'],
  ['alert_settings.changed', 'member', 'changed e-mail alerts'],
  ['feed.rotated', 'feed', 'made new feed addresses'],
  ['member.invited', 'invitation', 'invited someone'],
  ['invitation.cancelled', 'invitation', 'cancelled an invitation'],
  ['member.added', 'member', 'added a member'],
  ['member.role_changed', 'member', 'changed a member\'s role'],
  ['member.removed', 'member', 'removed a member'],
  ['member.joined', 'member', 'joined the organisation'],
  ['ownership.transferred', 'member', 'handed the organisation to another owner'],
  ['key.created', 'api_key', 'made an API key'],
  ['key.revoked', 'api_key', 'revoked an API key'],
  ['password.reset_requested', 'member', 'asked to reset a password'],
  ['password.changed', 'member', 'changed a password'],
  ['session.signed_in', 'session', 'signed in'],
  ['session.sign_in_failed', 'session', 'failed to sign in'],
  ['session.signed_out', 'session', 'signed out'],
  ['session.others_ended', 'session', 'signed out other sessions'],
  ['session.org_switched', 'session', 'switched organisation'],
  ['session.ended_by_provider', 'session', 'was signed out by the identity provider']
] as const

export type AuditAction = typeof AUDIT_ACTIONS[number][0]
export type AuditObjectType = typeof AUDIT_ACTIONS[number][1]
export const AUDIT_ACTION_NAMES = AUDIT_ACTIONS.map(a => a[0])
export const AuditActionSchema = literals(AUDIT_ACTION_NAMES)
export const AUDIT_OBJECT_TYPES = [...new Set(AUDIT_ACTIONS.map(a => a[1]))] as AuditObjectType[]

const SAYS = new Map<string, string>(AUDIT_ACTIONS.map(([action, , says]) => [action, says]))
const OBJECT_OF = new Map<string, AuditObjectType>(AUDIT_ACTIONS.map(([action, object]) => [action, object]))
/** How the app says an action ("acknowledged a change"). */
export const actionSays = (action: string): string => SAYS.get(action) ?? action
/** The kind of object `action` acts on. */
export const objectTypeOf = (action: AuditAction): AuditObjectType => OBJECT_OF.get(action)!

/** What a write tells the log of itself: the action, its object, and what changed. */
export interface AuditNote {
  action: AuditAction
  /** The object's id (a domain's, a page's…); null when there is none (an organisation-wide setting). */
  objectId?: string | null
  /** What a reader recognises the object by: a hostname, a page's address, a key's name. */
  objectLabel?: string | null
  /** What changed, in a few fields (never a secret). */
  details?: Record<string, unknown>
  /** The organisation whose log it goes in, when the request's caller has none yet (a sign-in). */
  orgId?: string | null
  /** Who acts, when the request's caller is not yet known as them (a sign-in, a link used). */
  actor?: Actor
}

export const AuditEventSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  at: Type.Unsafe<Date>({ type: 'string', format: 'date-time' }),
  actor: Type.Object({
    kind: ActorKindSchema,
    userId: Nullable(Type.String({ format: 'uuid' })),
    keyId: Nullable(Type.String({ format: 'uuid' })),
    label: Type.String({ description: 'an e-mail address, an API key\'s name or prefix, or "operator"' })
  }),
  ip: Nullable(Type.String({ description: 'the address the request came from (behind TRUST_PROXY, the client\'s)' })),
  action: AuditActionSchema,
  object: Type.Object({
    type: Type.String({ description: AUDIT_OBJECT_TYPES.join(', ') }),
    id: Nullable(Type.String()),
    label: Nullable(Type.String())
  }),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'what changed, in a few fields; never a secret' }),
  traceId: Nullable(Type.String({ description: 'the request\'s X-Trace-Id' }))
}, { $id: 'AuditEvent', title: 'AuditEvent' })
export type AuditEvent = Static<typeof AuditEventSchema>
