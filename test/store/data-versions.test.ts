import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DataVersions } from '../../src/store/data-versions.js'

// An organisation's data version as one process keeps it (store/data-versions.ts): what the
// API's ETags and kept answers are keyed by. A write this process made moves it at once,
// before the write's notification comes back; nothing is trusted while writes may go unheard.

describe('data versions', () => {
  it('a write this process made moves its organisation\'s version at once, and no other\'s', () => {
    const versions = new DataVersions()
    versions.listening()
    const mine = versions.of('org-a')!
    const theirs = versions.of('org-b')
    versions.wrote('org-a')
    const moved = versions.of('org-a')!
    assert.notEqual(moved, mine)
    assert.equal(versions.of('org-b'), theirs)
    versions.wrote('org-a')
    assert.notEqual(versions.of('org-a'), moved, 'each write moves it again')
    versions.heard('org-a:42')
    assert.equal(versions.of('org-a'), 'x42', 'the notification, when it comes, names the transaction')
  })

  it('while writes may go unheard there is no version, and a write made meanwhile gives none', () => {
    const versions = new DataVersions()
    versions.wrote('org-a')
    assert.equal(versions.of('org-a'), undefined)
    versions.listening()
    const before = versions.of('org-a')!
    versions.lost()
    versions.wrote('org-a')
    assert.equal(versions.of('org-a'), undefined)
    versions.listening()
    assert.notEqual(versions.of('org-a'), before, 'a new epoch after the loss')
  })
})
