import type { Mail } from './mailer.js'

// The words of the account e-mails, shared by the app, the admin API and the CLI.

export function invitationMail (p: { to: string, inviter: string, orgName: string, role: string, link: string }): Mail {
  return {
    to: p.to,
    subject: `${p.inviter} invites you to ${p.orgName} on Sitewatch`,
    text: `${p.inviter} invites you to join ${p.orgName} on Sitewatch as ${p.role}.\n\n` +
      `Accept here (the link works once, for 7 days):\n\n${p.link}\n`
  }
}

export function ssoLinkMail (p: { to: string, link: string }): Mail {
  return {
    to: p.to,
    subject: 'Link your Sitewatch account to your identity provider',
    text: 'Your organisation\'s identity provider signed you in as this address, which already has a Sitewatch ' +
      `account. To link the two and sign in (the link works once, for 30 minutes):\n\n${p.link}\n\n` +
      'If it was not you, ignore this e-mail: nothing is linked without it.\n'
  }
}

export function resetMail (p: { to: string, link: string }): Mail {
  return {
    to: p.to,
    subject: 'Reset your Sitewatch password',
    text: 'Someone asked to reset the password of your Sitewatch account.\n\nChoose a new one here (the link ' +
      `works once, for an hour):\n\n${p.link}\n\nIf it was not you, ignore this e-mail.\n`
  }
}
