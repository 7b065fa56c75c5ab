import type { ColumnType, Generated } from 'kysely'
import type { Role } from '../vocabulary/core.js'
import type { CreatedAt, Timestamp } from './schema-jobs.js'

// People, their sessions and how they sign in: accounts, memberships, one-time links,
// failed sign-ins counted, and single sign-on (store/schema.ts has the rest, and the Database).

export interface UsersTable {
  id: Generated<string>
  email: string
  name: string | null
  password_hash: string | null
  created_at: CreatedAt
}

export interface MembershipsTable {
  user_id: string
  org_id: string
  role: Role
  created_at: CreatedAt
  /** The member's own feed token: their feed URLs stop working with the membership. */
  feed_token: string | null
}

export interface AuthFailuresTable {
  /** `account:<e-mail>`, `address:<ip>`, `reset:<e-mail>`… */
  key: string
  failures: number
  window_start: Timestamp
}

export interface SessionsTable {
  id: Generated<string>
  token_hash: string
  user_id: string
  org_id: string | null
  user_agent: string | null
  ip: string | null
  created_at: CreatedAt
  last_seen_at: ColumnType<Date, Date | undefined, Date>
  expires_at: Timestamp
  single_sign_on: ColumnType<boolean, boolean | undefined, never>
  /** The organisation whose provider opened it: the only one it reaches. */
  sso_org_id: ColumnType<string | null, string | null | undefined, never>
  sso_subject: ColumnType<string | null, string | null | undefined, never>
  sso_sid: ColumnType<string | null, string | null | undefined, never>
}

export type TokenPurpose = 'setup' | 'reset' | 'invite'

export interface AccountTokensTable {
  id: Generated<string>
  token_hash: string
  purpose: TokenPurpose
  email: string | null
  user_id: string | null
  org_id: string | null
  role: Role | null
  invited_by: string | null
  created_at: CreatedAt
  expires_at: Timestamp
  used_at: Timestamp | null
}

export interface SsoSettingsTable {
  org_id: string
  issuer: string
  client_id: string
  client_secret: string
  client_auth: Generated<string>
  default_role: Role
  required: Generated<boolean>
  updated_at: Generated<Date>
}

export interface SsoDomainsTable {
  domain: string
  org_id: string
  token: string
  verified_at: Date | null
  checked_at: Date | null
  check_error: string | null
}

export interface SsoIdentitiesTable {
  org_id: string
  issuer: string
  subject: string
  user_id: string
  created_at: CreatedAt
}

export interface SsoLinksTable {
  token_hash: string
  browser_hash: string
  mail_hash: string | null
  org_id: string
  user_id: string
  issuer: string
  subject: string
  sid: string | null
  next: string | null
  expires_at: Date
}

export interface SsoAttemptsTable {
  state_hash: string
  browser_hash: string
  org_id: string
  code_verifier: string
  nonce: string
  next: string | null
  expires_at: Date
}
