// The benchmark's web site, in a process of its own so that serving it costs the
// measured process nothing (a watched site is someone else's machine).
import { BenchSite } from './site.js'

const site = await new BenchSite(Number(process.env.BENCH_PAGES ?? 1000)).start()
process.send!({ origin: site.origin })
process.on('message', (msg: { noise: number[], real: number[] }) => {
  site.mutate(msg.noise, msg.real)
  process.send!({ mutated: true })
})
process.on('disconnect', () => {
  void site.close().then(() => process.exit(0))
})
