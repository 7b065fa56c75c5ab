import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'

/** /openapi.json, drawn from the routes' schemas, and the Swagger UI at /swagger. */
export async function openApiDocs (app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sitewatch API',
        version: '1.0.0',
        description:
          "Website change monitoring: register a competitor's domain, Sitewatch discovers its important pages, " +
          'crawls them every day and reports typed, scored changes. Every /api request needs `Authorization: ' +
          'Bearer <API_KEY>`. ' +
          `Rate limits count per organisation: ${config.rateLimitStandardPerMinute} requests per minute, and ` +
          `${config.rateLimitHeavyPerHour} per hour for the heavy endpoints (discover, crawl, research), ` +
          'as this deployment is set (the contract\'s defaults are 100 and 10). ' +
          'Every /api answer says its bucket in X-RateLimit-*. Calls without a valid key count per address; a ' +
          'call its key may not make (its scope, its plan: 403) counts nothing. ' +
          'Values in a JSON body must have the types the schema gives (no coercion: `"priority": "5"` is a 400); ' +
          'query parameters are read as their types. A body over 1 MiB is 413 PAYLOAD_TOO_LARGE; a known path ' +
          'asked with a method it does not answer is 405 METHOD_NOT_ALLOWED with `Allow`; answers over 1 KiB are ' +
          'compressed (br, gzip, deflate) when Accept-Encoding allows. ' +
          'Every successful GET carries a weak `ETag`: send it back in `If-None-Match`, and an answer that has not ' +
          'changed is a `304` with no body, which no rate limit counts. A tag moves with every write to what the ' +
          "organisation's answers show, whatever made it (an API call, a crawl, the app); job answers also move " +
          'every 5 s and usage every minute, as their clock does. On PostgreSQL with several API processes a write ' +
          'moves every tag within milliseconds (its NOTIFY); each process has tags of its own until it hears a write.'
      },
      servers: [
        {
          url: config.publicBaseUrl ?? '/',
          description: config.publicBaseUrl ? 'this deployment' : 'the server that served this document'
        }
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'an API key, sw_live_…; a revoked key is refused within 2 seconds'
          }
        }
      },
      security: [{ apiKey: [] }],
      tags: [
        { name: 'domains', description: 'Monitored domains' },
        { name: 'pages', description: 'Pages of a domain' },
        { name: 'jobs', description: 'Discovery, crawl and research jobs' },
        { name: 'usage', description: 'Plan and quotas' },
        { name: 'changes', description: 'Detected changes across domains' },
        { name: 'research', description: 'Research briefs: one research credit buys a sourced brief of a domain' },
        { name: 'alerts', description: 'Webhook and Slack destinations for change and job events' },
        { name: 'audit', description: 'Who did what in the organisation: the audit log' },
        { name: 'sso', description: 'Single sign-on with the company\'s identity provider (OpenID Connect)' }
      ]
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    hideUntagged: true
  })
  // The explorer is served on the app's origin: a policy of its own, as strict as it allows
  // (scripts: its own, by their hashes; styles: its own file and those its components
  // insert, which no hash can name), never framed (clickjacking), and nothing fetched from
  // elsewhere.
  await app.register(swaggerUi, {
    routePrefix: '/swagger',
    staticCSP: true,
    transformStaticCSP: header => header
      .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
      .replace("base-uri 'self'", "base-uri 'none'")
      .replace(/style-src [^;]*;/, "style-src 'self' 'unsafe-inline';")
      .replace(' validator.swagger.io', '')
      .replace(/ https:/g, '')
      // Same-origin assets of a deployment served over http would be asked for over https.
      .replace(/\s*upgrade-insecure-requests;?/, '')
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
