// What a watched site of the fleet answers (the fleet bench's sites and the fleet test's):
// robots.txt naming its sitemap, a sitemap of `count` pages, the home page and /p/N pages
// that read as pages of their own, and 404 elsewhere (discovery's probes find nothing).
export function fleetAnswer (host: string, path: string, count: number) {
  if (path === '/robots.txt') {
    return { status: 200, type: 'text/plain', body: `User-agent: *\nAllow: /\nSitemap: https://${host}/sitemap.xml\n` }
  }
  if (path === '/sitemap.xml') {
    const urls = Array.from({ length: count }, (_, i) => `<url><loc>https://${host}/p/${i}</loc></url>`).join('')
    return {
      status: 200,
      type: 'application/xml',
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`
    }
  }
  if (path === '/' || /^\/p\/\d+$/.test(path)) {
    return {
      status: 200,
      type: 'text/html; charset=utf-8',
      body: `<html><head><title>${host}${path}</title></head><body><main><h1>${host} ${path}</h1>` +
        `<p>Page ${path} of ${host}, with enough words to be read as a page of its own.</p></main></body></html>`
    }
  }
  return { status: 404, type: 'text/html', body: '<h1>Not found</h1>' }
}
