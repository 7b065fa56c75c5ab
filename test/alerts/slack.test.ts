import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slackMessage } from '../../src/alerts/deliver.js'
import { signedImageLinks, verifyImageLink } from '../../src/alerts/signature.js'

describe('Slack messages and image links', () => {
  const payload = (images?: object) => ({
    change: { id: 'c1', summary: 'Pro: $49 → $59', severity: 'high', changeType: 'price_change', confidence: '0.95', images },
    page: { url: 'https://acme.test/pricing' },
    domain: { domain: 'acme.test', displayName: null }
  })

  it('a change with screenshots links to its before / after picture', () => {
    const links = signedImageLinks('s3cret', 'https://sw.example/', 'c1', 1_000)
    const text = JSON.stringify(slackMessage('change.detected', payload(links), 'https://sw.example'))
    assert.ok(text.includes(`<${links.diff}|before / after>`))
    assert.ok(!JSON.stringify(slackMessage('change.detected', payload(), 'https://sw.example')).includes('before / after'))
  })

  it('a structured change lists what its reader saw: a pricing page\'s moves, a release\'s items', () => {
    const pricing = { ...payload(), change: { ...payload().change, diffData: { pricing: { changes: [{ summary: 'Pro: $49 → $59 (+20%)' }, { summary: 'Team plan removed' }] } } } }
    const text = JSON.stringify(slackMessage('change.detected', pricing, 'https://sw.example').blocks)
    assert.ok(text.includes('\\n> Pro: $49 → $59 (+20%)\\n> Team plan removed'), text)
    const release = { ...payload(), change: { ...payload().change, diffData: { changelog: { items: ['Added: replay', 'Fixed: login'] } } } }
    assert.ok(JSON.stringify(slackMessage('change.detected', release, undefined).blocks).includes('> Added: replay'))
    assert.ok(!JSON.stringify(slackMessage('change.detected', payload(), undefined).blocks).includes('\\n> '), 'a plain change lists nothing')
  })

  it('a link is good for its change, image and week only', () => {
    const links = signedImageLinks('s3cret', 'https://sw.example', 'c1', 1_000)
    const { searchParams } = new URL(links.diff)
    const expires = Number(searchParams.get('expires'))
    const signature = searchParams.get('signature')!
    assert.equal(expires, 1_000 + 7 * 86_400)
    assert.equal(verifyImageLink('s3cret', 'c1', 'diff', expires, signature, 2_000), true)
    assert.equal(verifyImageLink('s3cret', 'c1', 'diff', expires, signature, expires + 1), false, 'expired')
    assert.equal(verifyImageLink('s3cret', 'c2', 'diff', expires, signature, 2_000), false, 'another change')
    assert.equal(verifyImageLink('s3cret', 'c1', 'before', expires, signature, 2_000), false, 'another image')
    assert.equal(verifyImageLink('other', 'c1', 'diff', expires, signature, 2_000), false, 'another secret')
  })
})
