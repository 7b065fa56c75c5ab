import dns2 from 'dns2'

/**
 * A DNS server on 127.0.0.1 (dns2, over UDP) that answers TXT questions from `txt`
 * (name → values) and says NXDOMAIN for every other name: the resolver a test points
 * SSO_DNS_SERVERS at.
 */
export async function startDns (): Promise<{ server: string, txt: Map<string, string[]>, close: () => Promise<void> }> {
  const txt = new Map<string, string[]>()
  const { Packet } = dns2
  const dns = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const [question] = request.questions
      const values = question && question.type === Packet.TYPE.TXT ? txt.get(question.name.toLowerCase()) : undefined
      if (values === undefined) (response.header as { rcode: number }).rcode = 3
      for (const data of values ?? []) {
        const answer = { name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data }
        response.answers.push(answer as any)
      }
      send(response)
    }
  })
  const listening = new Promise<void>(resolve => dns.once('listening', () => resolve()))
  await dns.listen({ udp: { port: 0, address: '127.0.0.1' } })
  await listening
  const { port } = (dns.addresses() as { udp: { port: number } }).udp
  return { server: `127.0.0.1:${port}`, txt, close: async () => { await dns.close() } }
}
