import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { isPublicAddress } from '../../src/crawl/address.js'
import { decodeHtml } from '../../src/crawl/charset.js'
import { createFetcher, type Fetcher } from '../../src/crawl/fetch.js'
import { FetchError } from '../../src/crawl/errors.js'
import { TestSite } from '../helpers/site.js'

describe('address classes', () => {
  const refused = [
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    '100.64.0.1',
    '100.100.100.200',
    '224.0.0.1',
    'ff02::1',
    '0.0.0.0',
    '::',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    'fd00:ec2::254',
    'fc00::1',
    '64:ff9b::a00:1',
    '2002:a00:1::',
    '2001:db8::1',
    'not-an-ip'
  ]
  for (const ip of refused) {
    it(`refuses ${ip}`, () => {
      assert.equal(isPublicAddress(ip), false)
    })
  }
  for (const ip of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e']) {
    it(`allows ${ip}`, () => {
      assert.equal(isPublicAddress(ip), true)
    })
  }
})

const expectFetchError = (code: string) => (err: unknown) => {
  assert.ok(err instanceof FetchError, `expected a FetchError, got ${String(err)}`)
  assert.equal(err.code, code, err.message)
  return true
}

describe('fetching: SSRF guard', () => {
  let site: TestSite
  let fetcher: Fetcher
  before(async () => {
    site = await new TestSite().start()
    site.page('/', '<h1>ok</h1>')
    site.set('/to-loopback', { status: 302, headers: { location: `${site.origin}/` } })
    site.set('/to-localhost', { status: 301, headers: { location: `http://localhost:${new URL(site.origin).port}/` } })
    site.set('/to-metadata', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } })
    site.set('/to-mapped', { status: 302, headers: { location: '/' } })
    fetcher = createFetcher({
      hostMap: new Map([['mapped.test', new URL(site.origin)]]),
      allowPrivateNetworks: false,
      timeoutMs: 2000,
      maxBytes: 1024 * 1024
    })
  })
  after(async () => {
    await fetcher.close()
    await site.close()
  })

  for (const url of [
    'http://127.0.0.1:9/',
    'http://[::1]:9/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'http://[::ffff:127.0.0.1]:9/',
    'http://0.0.0.0:9/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://2130706433/',
    'http://0x7f.1/'
  ]) {
    it(`refuses ${url} without connecting`, async () => {
      await assert.rejects(fetcher.fetch(url), expectFetchError('BLOCKED_ADDRESS'))
    })
  }

  it('refuses a host whose DNS answer is private (localhost)', async () => {
    await assert.rejects(
      fetcher.fetch(`http://localhost:${new URL(site.origin).port}/`),
      expectFetchError('BLOCKED_ADDRESS')
    )
  })

  it('refuses a redirect to a private address, checking every hop', async () => {
    await assert.rejects(fetcher.fetch('http://mapped.test/to-loopback'), expectFetchError('BLOCKED_ADDRESS'))
    await assert.rejects(fetcher.fetch('http://mapped.test/to-localhost'), expectFetchError('BLOCKED_ADDRESS'))
    await assert.rejects(fetcher.fetch('http://mapped.test/to-metadata'), expectFetchError('BLOCKED_ADDRESS'))
  })

  it('a mapped host reaches its origin and keeps its real host through redirects', async () => {
    const res = await fetcher.fetch('https://mapped.test/to-mapped')
    assert.equal(res.status, 200)
    assert.equal(res.url, 'https://mapped.test/')
  })

  it('with CRAWL_ALLOW_PRIVATE_NETWORKS the loopback site is reachable', async () => {
    const open = createFetcher({
      hostMap: new Map(),
      allowPrivateNetworks: true,
      timeoutMs: 2000,
      maxBytes: 1024 * 1024
    })
    try {
      assert.equal((await open.fetch(`${site.origin}/`)).status, 200)
    } finally {
      await open.close()
    }
  })

  it('warming up reaches a loopback server of its own, and loopback stays refused to crawls', async () => {
    await fetcher.warm()
    await fetcher.warm()
    await assert.rejects(fetcher.fetch(`${site.origin}/`), expectFetchError('BLOCKED_ADDRESS'))
  })
})

describe('fetching: hostile and broken sites', () => {
  let site: TestSite
  let fetcher: Fetcher
  const host = 'hostile.test'
  before(async () => {
    site = await new TestSite().start()
    site.set('/hang', () => {
      /* never answers */
    })
    site.set('/slow-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.write('<p>start')
    })
    site.set('/huge', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      const chunk = Buffer.alloc(64 * 1024, 'a')
      let sent = 0
      const pump = () => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length
          if (!res.write(chunk)) {
            res.once('drain', pump)
            return
          }
        }
        res.end()
      }
      pump()
    })
    site.set('/bomb', { body: gzipSync(Buffer.alloc(50 * 1024 * 1024, ' ')), headers: { 'content-encoding': 'gzip' } })
    site.set('/loop-a', { status: 302, headers: { location: '/loop-b' } })
    site.set('/loop-b', { status: 302, headers: { location: '/loop-a' } })
    site.set('/gzip', { body: gzipSync('<h1>Compressed</h1>'), headers: { 'content-encoding': 'gzip' } })
    site.set('/latin1-lying', {
      body: Buffer.from('<meta charset="windows-1252"><p>Caf\xe9 cr\xe8me \x80 5</p>', 'latin1'),
      headers: { 'content-type': 'text/html; charset=utf-8' }
    })
    site.set('/sjis', {
      body: Buffer.from([
        ...Buffer.from('<meta charset="shift_jis"><p>'),
        0x93,
        0xfa,
        0x96,
        0x7b,
        ...Buffer.from('</p>')
      ]),
      headers: { 'content-type': 'text/html' }
    })
    site.set('/unknown-charset', {
      body: Buffer.from('<p>naïve</p>', 'utf8'),
      headers: { 'content-type': 'text/html; charset=x-no-such-thing' }
    })
    site.set('/validators', {
      body: '<p>x</p>',
      headers: { etag: '"v1"', 'last-modified': 'Mon, 02 Nov 2026 10:00:00 GMT', 'content-language': 'fr-CH' }
    })
    site.set('/huge-validators', {
      body: '<p>x</p>',
      headers: {
        etag: `"${'e'.repeat(8000)}"`,
        'last-modified': 'x'.repeat(600),
        'content-type': `text/html; ${'p=1; '.repeat(200)}`
      }
    })
    site.set('/retry-later', { status: 503, headers: { 'retry-after': '120' }, body: 'busy' })
    fetcher = createFetcher({
      hostMap: new Map([[host, new URL(site.origin)]]),
      allowPrivateNetworks: false,
      timeoutMs: 500,
      maxBytes: 1024 * 1024
    })
  })
  after(async () => {
    await fetcher.close()
    await site.close()
  })

  // Without its timeout the fetch would wait for ever: the test's own limit catches that.
  it('a site that never answers times out', { timeout: 20_000 }, async () => {
    await assert.rejects(fetcher.fetch(`http://${host}/hang`), expectFetchError('TIMEOUT'))
  })

  it('a body that stalls times out', async () => {
    await assert.rejects(fetcher.fetch(`http://${host}/slow-body`), expectFetchError('TIMEOUT'))
  })

  it('10 MB is cut off at the byte cap', async () => {
    await assert.rejects(fetcher.fetch(`http://${host}/huge`), expectFetchError('TOO_LARGE'))
  })

  it('a small gzip body that inflates past the cap is cut off too', async () => {
    await assert.rejects(fetcher.fetch(`http://${host}/bomb`), expectFetchError('TOO_LARGE'))
  })

  it('a redirect loop stops after 5 redirects', async () => {
    await assert.rejects(fetcher.fetch(`http://${host}/loop-a`), expectFetchError('TOO_MANY_REDIRECTS'))
  })

  it('ETag and Last-Modified are kept for the next request, unless they are longer than any real server sends', async () => {
    const normal = await fetcher.fetch(`http://${host}/validators`)
    assert.equal(normal.etag, '"v1"')
    assert.equal(normal.lastModified, 'Mon, 02 Nov 2026 10:00:00 GMT')
    assert.equal(normal.contentLanguage, 'fr-CH', 'the page\'s declared language travels with it')
    const huge = await fetcher.fetch(`http://${host}/huge-validators`)
    assert.equal(huge.etag, null)
    assert.equal(huge.lastModified, null)
    assert.equal(huge.contentType.length, 255)
    assert.equal(huge.body.toString(), '<p>x</p>')
  })

  it('gzip is decoded', async () => {
    const res = await fetcher.fetch(`http://${host}/gzip`)
    assert.equal(res.body.toString(), '<h1>Compressed</h1>')
  })

  it('a wrong charset header loses to a <meta charset> that decodes cleanly', async () => {
    const res = await fetcher.fetch(`http://${host}/latin1-lying`)
    assert.match(decodeHtml(res.body, res.contentType), /Café crème € 5/)
  })

  it('<meta charset> is honoured when the header has none; an unknown label falls back to UTF-8', async () => {
    const sjis = await fetcher.fetch(`http://${host}/sjis`)
    assert.match(decodeHtml(sjis.body, sjis.contentType), /日本/)
    const unknown = await fetcher.fetch(`http://${host}/unknown-charset`)
    assert.match(decodeHtml(unknown.body, unknown.contentType), /naïve/)
  })

  it('Retry-After is read from 503', async () => {
    const res = await fetcher.fetch(`http://${host}/retry-later`)
    assert.equal(res.status, 503)
    assert.equal(res.retryAfterMs, 120_000)
  })
})
