// The page's main content as Markdown: headings, paragraphs, lists, links, code, tables (as
// text rows), without navigation chrome when the page marks its main content.
() => {
  const root = document.querySelector('main, [role=main], article') || document.body;
  if (!root) return '';
  const out = [];
  const clean = (s) => (s || '').replace(/\s+/g, ' ');
  const inline = (n) => {
    if (n.nodeType === 3) return clean(n.nodeValue);
    if (n.nodeType !== 1) return '';
    const el = n;
    if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) return '';
    if (!el.checkVisibility()) return '';
    const kids = () => Array.from(el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes).map(inline).join('');
    switch (el.tagName) {
      case 'A': { const t = kids().trim(); return el.href && t ? '[' + t + '](' + el.href + ')' : t; }
      case 'STRONG': case 'B': { const t = kids().trim(); return t ? '**' + t + '**' : ''; }
      case 'EM': case 'I': { const t = kids().trim(); return t ? '*' + t + '*' : ''; }
      case 'CODE': return '`' + el.textContent + '`';
      case 'IMG': return el.alt ? '![' + el.alt + ']' : '';
      case 'BR': return '\n';
    }
    return kids();
  };
  const block = (el, depth) => {
    if (el.nodeType === 3) { const t = clean(el.nodeValue).trim(); if (t) out.push(t); return; }
    if (el.nodeType !== 1) return;
    if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'NAV', 'HEADER', 'FOOTER'].includes(el.tagName) && el !== root) return;
    if (!el.checkVisibility()) return;
    const t = el.tagName;
    if (/^H[1-6]$/.test(t)) { out.push('#'.repeat(+t[1]) + ' ' + inline(el).trim()); return; }
    if (t === 'P' || t === 'BLOCKQUOTE' || t === 'FIGCAPTION' || t === 'DT' || t === 'DD') {
      const s = inline(el).trim(); if (s) out.push((t === 'BLOCKQUOTE' ? '> ' : '') + s); return;
    }
    if (t === 'PRE') { out.push('```\n' + el.innerText.replace(/\n$/, '') + '\n```'); return; }
    if (t === 'UL' || t === 'OL') {
      let i = 1;
      for (const li of Array.from(el.children)) {
        if (li.tagName !== 'LI' || !li.checkVisibility()) continue;
        const mark = t === 'OL' ? (i++) + '. ' : '- ';
        out.push('  '.repeat(depth) + mark + inline(li).trim().replace(/\n+/g, ' '));
      }
      return;
    }
    if (t === 'TR') { out.push('| ' + Array.from(el.cells).map((c) => inline(c).trim()).join(' | ') + ' |'); return; }
    const kids = Array.from(el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes);
    const hasBlock = kids.some((k) => k.nodeType === 1 && !['inline', 'inline-block', 'contents'].includes(getComputedStyle(k).display));
    if (!hasBlock) { const s = inline(el).trim(); if (s) out.push(s); return; }
    for (const k of kids) block(k, depth);
  };
  block(root, 0);
  return out.join('\n\n');
}
