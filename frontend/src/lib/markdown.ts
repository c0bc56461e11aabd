// Model output is untrusted: Markdown is rendered by marked, code highlighted by highlight.js,
// and the HTML always goes through DOMPurify before it reaches the DOM.
import DOMPurify from 'dompurify'
import { Marked, type Tokens } from 'marked'
import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import c from 'highlight.js/lib/languages/c'
import cpp from 'highlight.js/lib/languages/cpp'
import css from 'highlight.js/lib/languages/css'
import diff from 'highlight.js/lib/languages/diff'
import go from 'highlight.js/lib/languages/go'
import java from 'highlight.js/lib/languages/java'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import latex from 'highlight.js/lib/languages/latex'
import markdown from 'highlight.js/lib/languages/markdown'
import plaintext from 'highlight.js/lib/languages/plaintext'
import python from 'highlight.js/lib/languages/python'
import rust from 'highlight.js/lib/languages/rust'
import shell from 'highlight.js/lib/languages/shell'
import sql from 'highlight.js/lib/languages/sql'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, latex, markdown, plaintext, python, rust, shell, sql, typescript, xml, yaml }
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang)

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)
}

function highlight(code: string, lang: string): string {
  if (lang && hljs.getLanguage(lang)) {
    try {
      return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value
    } catch {
      // fall back to plain text
    }
  }
  return escapeHtml(code)
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const name = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase().replace(/[^\w+#-]/g, '') ?? ''
      const known = name && hljs.getLanguage(name) ? name : ''
      const label = name ? `<span class="code-lang">${escapeHtml(name)}</span>` : '<span class="code-lang"></span>'
      return (
        `<div class="codeblock"><div class="codebar">${label}` +
        `<button type="button" class="code-copy" data-copy-code>Copy</button></div>` +
        `<pre><code class="hljs${known ? ` language-${known}` : ''}">${highlight(text.replace(/\n$/, ''), known)}</code></pre></div>`
      )
    },
    // Images would load from wherever the model points: show them as links instead.
    image({ href, text }: Tokens.Image): string {
      const label = escapeHtml(text || href)
      return `<a href="${escapeHtml(href)}">${label}</a>`
    },
  },
})

// Everything that can fetch, embed or run something is forbidden; links are the only way out.
const PURIFY_CONFIG = {
  FORBID_TAGS: ['style', 'img', 'picture', 'source', 'video', 'audio', 'track', 'iframe', 'frame', 'object', 'embed', 'form', 'input', 'textarea', 'select', 'link', 'meta', 'base', 'svg', 'math', 'template'],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'background', 'poster'],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|#)/i,
}

let hooked = false
function ensureHooks() {
  if (hooked) return
  hooked = true
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href')
      if (!href) {
        node.removeAttribute('target')
        return
      }
      if (!href.startsWith('#')) {
        node.setAttribute('target', '_blank')
        node.setAttribute('rel', 'noopener noreferrer nofollow')
      }
    }
  })
}

/** Renders untrusted Markdown to HTML that is safe to assign to innerHTML. */
export function renderMarkdown(src: string): string {
  ensureHooks()
  const html = marked.parse(src ?? '', { async: false }) as string
  return DOMPurify.sanitize(html, PURIFY_CONFIG) as unknown as string
}
