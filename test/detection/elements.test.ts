import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Parser } from 'htmlparser2'
import { walkElements } from '../../src/detection/text/elements.js'

// The walk must see the elements htmlparser2's Parser sees: the same opens (with the
// attributes asked for), texts and closes, in the same order.

const WANTED = new Set(['class', 'id', 'href', 'hidden'])

function viaWalk (html: string): string[] {
  const events: string[] = []
  walkElements(
    html,
    {
      open: (name, attrs) => events.push(`<${name} ${JSON.stringify(attrs)}>`),
      text: data => events.push(data),
      close: name => events.push(`</${name}>`)
    },
    WANTED
  )
  return merged(events)
}

function viaParser (html: string): string[] {
  const events: string[] = []
  const parser = new Parser(
    {
      onopentag: (name, attrs) =>
        events.push(
          `<${name} ${JSON.stringify(Object.fromEntries(Object.entries(attrs).filter(([k]) => WANTED.has(k))))}>`
        ),
      ontext: data => events.push(data),
      onclosetag: name => events.push(`</${name}>`)
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true }
  )
  parser.write(html)
  parser.end()
  return merged(events)
}

/** Adjacent texts as one: where a text is cut in pieces (at entities) is no difference. */
function merged (events: string[]): string[] {
  const out: string[] = []
  for (const e of events) {
    const last = out.length - 1
    if (!e.startsWith('<') && last >= 0 && !out[last].startsWith('<')) out[last] += e
    else out.push(e)
  }
  return out
}

const TRICKY = [
  '<ul><li>one<li>two</ul><p>after',
  '<table><tr><td>a<td>b<tr><th>c</table>',
  '<dl><dt>term<dd>definition<dt>next</dl>',
  '<p>para<div>block closes the p</div></p><p>x</P>',
  '</p>stray close of p, and </br> a stray br, and </div> a stray div',
  '<br><hr/><img src=x alt="a"><input value=1>text<br/>more',
  '<DIV CLASS="Upper" ID=main>Case <B>mixed</b></div>',
  '<a href="/x?a=1&amp;b=2" class=\'q\' href="/second">link &amp; &lt;more&gt; &#x263A; &#128512;</a>',
  '<div hidden class="a" class="b">hidden</div><p id=x id=y>ids</p>',
  '<script>if (a < b && c > d) { "</div>" }</script><style>p{color:red}</style><title>T &amp; t</title>',
  '<svg><path d="M0"/><circle/></svg><math><mi>x</mi></math>',
  '<select><option>a<option>b<optgroup><option>c</select>',
  '<!-- comment --><!doctype html><![CDATA[ data ]]><?php echo 1 ?>text',
  '<p>unclosed <b>bold <i>italic',
  '<h1>heading<p>para</h1>after',
  '<tbody><tr><td>x</td></tr><tfoot><tr><td>y',
  '<ruby>kan<rt>ji<rp>(</rp>',
  '<div\n  class="multi\nline"   data-x = "1" >spaced attributes</div>',
  'text &nbsp; &copy; &unknown; &#0; &#x110000; &amp',
  '<textarea><b>not a tag</b></textarea><button>b<input></button>'
]

describe('the element walk', () => {
  it("sees what htmlparser2's Parser sees on tricky markup", () => {
    for (const html of TRICKY) assert.deepEqual(viaWalk(html), viaParser(html), html)
  })

  it("sees what htmlparser2's Parser sees on random tag soup", () => {
    const tags = [
      'p',
      'div',
      'li',
      'ul',
      'td',
      'tr',
      'table',
      'th',
      'dd',
      'dt',
      'b',
      'br',
      'img',
      'h2',
      'option',
      'select',
      'span',
      'hr',
      'tbody',
      'a'
    ]
    let seed = 7
    const random = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0
      return seed / 2 ** 32
    }
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]
    for (let n = 0; n < 300; n++) {
      const parts: string[] = []
      for (let k = 0; k < 40; k++) {
        const r = random()
        const tag = pick(tags)
        if (r < 0.4) {
          parts.push(
            `<${random() < 0.2 ? tag.toUpperCase() : tag}${random() < 0.3 ? ` class="c${k}" id=i${k}` : ''}${random() < 0.1 ? '/' : ''}>`
          )
        } else if (r < 0.7) parts.push(`</${tag}>`)
        else parts.push(pick(['word', ' ', 'a &amp; b', '&#169;', '\n']))
      }
      const html = parts.join('')
      assert.deepEqual(viaWalk(html), viaParser(html), html)
    }
  })

  it('reads only the attributes asked for, the first of repeated ones', () => {
    const seen: Array<Record<string, string>> = []
    walkElements(
      '<a href="/a" data-x="1" HREF="/b" class="k">x</a>',
      { open: (_, a) => seen.push({ ...a }), text () {}, close () {} },
      new Set(['href'])
    )
    assert.deepEqual(seen, [{ href: '/a' }])
  })
})
