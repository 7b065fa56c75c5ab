import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

// Secrets a tenant gives the service to use later (an identity provider's client secret),
// sealed at rest with AES-256-GCM under a key the operator keeps apart from the database:
// SECRETS_KEY, or, when it is unset, a key file made once in DATA_DIR (docs/security.md; a
// database in memory gets a key that lives as long as it does).
// A sealed value names its key by a short hash, so a value sealed under another key is
// told as such rather than read as garbage.

const PREFIX = 'sealed:v1:'

export interface Sealer {
  seal(plain: string): string
  /** The plain secret; a value from before sealing (no prefix) is returned as it is. */
  open(stored: string): string
  isSealed(stored: string): boolean
}

export class SealError extends Error {}

let memoryKey: Buffer | undefined

function keyOf (source: { secretsKey: string | undefined, dataDir: string }): Buffer {
  if (source.secretsKey) return createHash('sha256').update(source.secretsKey).digest()
  // A database in memory keeps nothing past the process: neither does its key (one for the whole process).
  if (source.dataDir === 'memory://') return (memoryKey ??= randomBytes(32))
  const file = join(source.dataDir, 'secrets.key')
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex')
  } catch {
    mkdirSync(source.dataDir, { recursive: true })
    const made = randomBytes(32)
    try {
      writeFileSync(file, made.toString('hex'), { mode: 0o600, flag: 'wx' })
      return made
    } catch {
      // Another process made it first: its key is the one.
      return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex')
    }
  }
}

export function sealer (source: { secretsKey: string | undefined, dataDir: string }): Sealer {
  let key: Buffer | undefined
  const theKey = () => (key ??= keyOf(source))
  const keyId = () => createHash('sha256').update(theKey()).digest('hex').slice(0, 8)
  return {
    seal (plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', theKey(), iv)
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return PREFIX + [keyId(), iv, cipher.getAuthTag(), sealed]
        .map(p => typeof p === 'string' ? p : p.toString('base64url')).join(':')
    },
    open (stored) {
      if (!stored.startsWith(PREFIX)) return stored
      const [id, iv, tag, sealed] = stored.slice(PREFIX.length).split(':')
      if (id !== keyId()) {
        throw new SealError('The client secret was sealed under another SECRETS_KEY than this process has: ' +
          'give every process the same SECRETS_KEY, or save the client secret again')
      }
      const decipher = createDecipheriv('aes-256-gcm', theKey(), Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8')
    },
    isSealed: stored => stored.startsWith(PREFIX)
  }
}
