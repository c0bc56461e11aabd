// Tofu's page snapshot: the visible text in reading order, one line per block, with every
// control as [ref role "name" state]. Refs are kept on the elements (a WeakMap in the top
// window), so an element keeps its ref across snapshots for as long as it exists.
// Called as a function with one options object: {maxText, prefix}: prefix starts the refs of
// a cross-origin frame's document (its own window keeps them), so they differ from the top's.
// A cross-origin frame, which this window cannot read, is a line of its own, FRAME_MARK ref
// name: Go reads that frame on its own and puts its lines there.
(opts) => {
  const top = window;
  const T = top.__tofu || (top.__tofu = { next: 1, ids: new WeakMap(), refs: new Map() });
  const maxText = (opts && opts.maxText) || 300;
  const refPrefix = (opts && opts.prefix) || '';
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider',
    'spinbutton', 'treeitem', 'listbox', 'gridcell']);
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
  const LEAF = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'SUMMARY', 'IMG']);
  const INLINE = new Set(['inline', 'inline-block', 'inline-flex', 'inline-grid', 'contents', 'inline-table']);
  const meta = {};
  const lines = [];
  let cur = [];
  let prefix = '';
  let walked = 0;
  let row = 0; // inside a list item or table row: its blocks stay on one line
  let quiet = 0; // inside a label whose control is listed by that label's text: skip the text

  // Selectors of rules that show an element on :hover (TodoMVC's delete buttons): such a
  // control is listed while hidden, and the click hovers its row first.
  const hoverSel = [];
  const collectHover = (doc) => {
    for (const sheet of Array.from(doc.styleSheets)) {
      let rules;
      try { rules = sheet.cssRules; } catch (e) { continue; }
      const visit = (list) => {
        for (const r of Array.from(list || [])) {
          if (r.cssRules && !r.selectorText) { visit(r.cssRules); continue; }
          if (!r.selectorText || r.selectorText.indexOf(':hover') < 0) continue;
          const s = r.style;
          if (!(s.display && s.display !== 'none') && !(s.visibility === 'visible') && !(s.opacity && s.opacity !== '0')) continue;
          for (const part of r.selectorText.split(',')) {
            if (part.indexOf(':hover') < 0) continue;
            const sel = part.replace(/:hover/g, '').trim();
            if (sel) hoverSel.push(sel);
          }
        }
      };
      visit(rules);
    }
  };
  const hoverRevealed = (el) => hoverSel.some((s) => { try { return el.matches(s); } catch (e) { return false; } });
  // Shown now only because the mouse is over it or its row (the click that deleted a todo
  // left the mouse where the next row slid in): marked hover all the same, so the marks
  // follow the page's state, not the mouse.
  const shownByHover = (el) => {
    if (!hoverSel.length || !el.closest(':hover')) return false;
    for (let e = el; e; e = e.parentElement) if (hoverRevealed(e)) return true;
    return false;
  };

  const refOf = (el) => {
    let r = T.ids.get(el);
    if (!r) { r = refPrefix + 'e' + T.next++; T.ids.set(el, r); }
    T.refs.set(r, new WeakRef(el));
    return r;
  };
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n) + '…' : s);
  const q = (s) => '"' + cut(s, 80).replace(/"/g, "'") + '"';

  const roleOf = (el) => {
    const r = (el.getAttribute('role') || '').split(' ')[0];
    if (r) return r;
    const t = el.tagName;
    if (t === 'A') return 'link';
    if (t === 'BUTTON' || t === 'SUMMARY') return 'button';
    if (t === 'SELECT') return el.multiple ? 'listbox' : 'combobox';
    if (t === 'TEXTAREA') return 'textbox';
    if (t === 'INPUT') {
      const ty = (el.type || 'text').toLowerCase();
      if (ty === 'checkbox') return 'checkbox';
      if (ty === 'radio') return 'radio';
      if (['button', 'submit', 'reset', 'image'].includes(ty)) return 'button';
      if (ty === 'range') return 'slider';
      if (ty === 'number') return 'spinbutton';
      if (ty === 'search') return 'searchbox';
      if (ty === 'file') return 'file';
      return 'textbox';
    }
    if (el.isContentEditable) return 'textbox';
    return 'clickable';
  };
  const interactive = (el, cs) => {
    const t = el.tagName;
    if (t === 'A') return el.hasAttribute('href') || el.hasAttribute('onclick');
    if (t === 'INPUT') return el.type !== 'hidden';
    if (t === 'BUTTON' || t === 'SELECT' || t === 'TEXTAREA' || t === 'SUMMARY') return true;
    const role = (el.getAttribute('role') || '').split(' ')[0];
    if (ROLES.has(role)) return true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    if (el.hasAttribute('onclick')) return true;
    // React puts an empty onclick on its root for old iOS: a handler that does nothing is none.
    if (typeof el.onclick === 'function' && !/^function\s*\w*\s*\(\)\s*\{\s*\}$/.test(String(el.onclick))) return true;
    const ti = el.getAttribute('tabindex');
    if (ti !== null && +ti >= 0) return true;
    // A click handler set by a framework leaves no trace but the pointer cursor it starts.
    if (cs.cursor === 'pointer' && t !== 'LABEL') {
      const p = el.parentElement;
      if (!p || getComputedStyle(p).cursor !== 'pointer') return true;
    }
    return false;
  };
  const textOf = (el) => {
    if (el.tagName === 'IMG') return el.alt || '';
    let s = '';
    const add = (n) => {
      if (n.nodeType === 3) { s += n.nodeValue; return; }
      if (n.nodeType !== 1 || SKIP.has(n.tagName)) return;
      if (n.tagName === 'IMG') { s += ' ' + (n.alt || '') + ' '; return; }
      if (n.getAttribute('aria-hidden') === 'true') return;
      const kids = n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes;
      for (const k of Array.from(kids)) add(k);
      if (n !== el && !INLINE.has(getComputedStyle(n).display)) s += ' ';
    };
    add(el);
    return clean(s);
  };
  const nameOf = (el, role) => {
    const doc = el.ownerDocument;
    let n = el.getAttribute('aria-label');
    if (n) return clean(n);
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      n = lb.split(/\s+/).map((id) => { const x = doc.getElementById(id); return x ? textOf(x) : ''; }).join(' ');
      if (clean(n)) return clean(n);
    }
    const t = el.tagName;
    if (t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA') {
      if (el.labels && el.labels.length) {
        n = Array.from(el.labels).map(textOf).join(' ');
        if (clean(n)) return clean(n);
      }
      if (t === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) return clean(el.value || el.type);
      if (t === 'INPUT' && el.type === 'image') return clean(el.alt || 'submit');
      n = el.getAttribute('placeholder') || el.getAttribute('title') || '';
      return clean(n);
    }
    n = textOf(el) || el.getAttribute('title') || '';
    return clean(n);
  };
  // What tells an unnamed control apart: its id or first class.
  const hintOf = (el) => {
    if (el.id) return '#' + el.id;
    const c = (el.getAttribute('class') || '').trim().split(/\s+/)[0];
    return c ? '.' + c : '';
  };
  const control = (el, hover, container) => {
    const ref = refOf(el);
    const role = roleOf(el);
    let s = '[' + ref + ' ' + role;
    // A container's text follows as lines of its own: naming it by that text would repeat it.
    const name = container ? clean(el.getAttribute('aria-label') || '') : nameOf(el, role);
    if (name) s += ' ' + q(name); else { const h = hintOf(el); if (h) s += ' ' + h; }
    const m = {};
    const t = el.tagName;
    if (t === 'INPUT' || t === 'TEXTAREA') {
      const ty = (el.type || '').toLowerCase();
      if (ty === 'checkbox' || ty === 'radio') { if (el.checked) s += ' checked'; }
      else if (ty === 'password') { m.p = true; s += ' password'; if (el.value) s += '=••••'; }
      else if (ty === 'file') { m.f = true; if (el.files && el.files.length) s += '=' + q(Array.from(el.files).map((f) => f.name).join(', ')); }
      else if (el.value && ty !== 'submit' && ty !== 'button' && ty !== 'reset') s += '=' + q(el.value);
      if (ty === 'submit' || ty === 'image') m.s = true;
      else if (el.form) m.o = true;
    } else if (t === 'SELECT') {
      const sel = Array.from(el.selectedOptions).map((o) => clean(o.text));
      if (sel.length) s += '=' + q(sel.join(', '));
      const opts = Array.from(el.options).map((o) => cut(clean(o.text), 30));
      s += ' options:' + (opts.length > 12 ? opts.slice(0, 12).join('|') + '|…' + (opts.length - 12) + ' more' : opts.join('|'));
    } else if (t === 'BUTTON') {
      if ((el.getAttribute('type') || 'submit').toLowerCase() === 'submit' && el.form) m.s = true;
    } else if (el.isContentEditable) {
      const v = clean(el.innerText);
      if (v && v !== name) s += '=' + q(v);
    }
    const ac = el.getAttribute('aria-checked');
    if (ac === 'true') s += ' checked';
    const ae = el.getAttribute('aria-expanded');
    if (ae) s += ae === 'true' ? ' expanded' : ' collapsed';
    if (el.getAttribute('aria-selected') === 'true') s += ' selected';
    if (el.getAttribute('aria-pressed') === 'true') s += ' pressed';
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') s += ' disabled';
    if (el.ownerDocument.activeElement === el && el.ownerDocument.hasFocus()) s += ' focused';
    if (hover) { s += ' hover'; m.h = true; }
    m.n = role + (name ? ' ' + q(cut(name, 40)) : (hintOf(el) ? ' ' + hintOf(el) : ''));
    meta[ref] = m;
    cur.push(s + ']');
  };
  const flush = () => {
    if (cur.length) {
      const line = prefix + cur.join(' ');
      if (line.trim()) lines.push(line);
    }
    cur = [];
  };
  const text = (s) => {
    if (quiet) return;
    s = clean(s);
    if (s) cur.push(cut(s, maxText));
  };
  const blockPrefix = (el) => {
    const t = el.tagName;
    if (/^H[1-6]$/.test(t)) return '#'.repeat(+t[1]) + ' ';
    if (t === 'LI') return '- ';
    return '';
  };

  const walkChildren = (parent) => {
    let kids;
    if (parent.shadowRoot) kids = parent.shadowRoot.childNodes;
    else if (parent.tagName === 'SLOT') {
      kids = parent.assignedNodes({ flatten: true });
      if (!kids.length) kids = parent.childNodes;
    } else kids = parent.childNodes;
    for (const k of Array.from(kids)) walk(k);
  };
  const walk = (node) => {
    if (++walked > 30000) return;
    if (node.nodeType === 3) { text(node.nodeValue); return; }
    if (node.nodeType !== 1) return;
    const el = node;
    if (SKIP.has(el.tagName)) return;
    const cs = getComputedStyle(el);
    if (cs.display === 'none') {
      // Shown on hover (a delete button, a menu): its controls are listed, marked hover.
      if (hoverRevealed(el) && el.parentElement && getComputedStyle(el.parentElement).display !== 'none') {
        if (interactive(el, cs)) control(el, true);
        else for (const d of Array.from(el.querySelectorAll('*'))) if (interactive(d, getComputedStyle(d))) control(d, true);
      }
      return;
    }
    if (el.tagName === 'DETAILS' && !el.open) {
      const sum = el.querySelector(':scope > summary');
      if (sum) { flush(); walk(sum); flush(); }
      return;
    }
    if (el.getAttribute('aria-hidden') === 'true' && !interactive(el, cs)) return;
    const t = el.tagName;
    const nested = t === 'UL' || t === 'OL' || t === 'TABLE' || t === 'DL';
    const rowStart = t === 'LI' || t === 'TR' || t === 'DT' || t === 'DD' || ['row', 'listitem', 'option', 'treeitem'].includes(el.getAttribute('role'));
    const savedRow = row;
    if (nested) row = 0;
    const block = !INLINE.has(cs.display) && (!row || nested);
    if (block) flush();
    if (rowStart) row++;
    const savedQuiet = quiet;
    if (t === 'LABEL' && el.control && el.control.type !== 'hidden') quiet++;
    const hidden = cs.visibility === 'hidden' || cs.visibility === 'collapse';
    if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      const name = el.getAttribute('title') || el.getAttribute('name') || '';
      if (doc && doc.body) {
        flush();
        lines.push(prefix + '[frame' + (name ? ' ' + q(name) : '') + ']');
        collectHover(doc);
        const saved = prefix;
        prefix += '  ';
        walk(doc.body);
        flush();
        prefix = saved;
      } else {
        flush();
        lines.push(prefix + '\u0001' + refOf(el) + ' ' + q(name || el.src));
      }
      if (block) flush();
      return;
    }
    const saved = prefix;
    if (block) prefix = saved + blockPrefix(el);
    if (!hidden && interactive(el, cs) && (el.offsetWidth > 0 || el.offsetHeight > 0 || el.getClientRects().length)) {
      const hasInner = !LEAF.has(el.tagName) && !!el.querySelector('a[href],button,input,select,textarea,[role],[contenteditable],[tabindex],[onclick]');
      control(el, shownByHover(el), hasInner);
      if (hasInner) walkChildren(el);
    } else if (el.tagName === 'IMG') {
      if (!hidden && el.alt) text('[img ' + q(el.alt) + ']');
    } else if (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA' || el.tagName === 'BUTTON') {
      // Laid out but not shown (opacity 0, 1px): still a control; listed so it can be used.
      if (el.type !== 'hidden') control(el, false);
    } else if (!hidden || el.childElementCount) {
      if (hidden) { for (const k of Array.from(el.children)) walk(k); } else walkChildren(el);
    }
    if (block) { flush(); prefix = saved; }
    row = savedRow;
    quiet = savedQuiet;
  };

  collectHover(document);
  if (document.body) walk(document.body);
  flush();
  // Forget refs of elements that are gone, so the map does not grow without bound.
  for (const [r, w] of T.refs) { const e = w.deref(); if (!e || !e.isConnected) T.refs.delete(r); }
  const merged = [];
  for (const l of lines) if (!(merged.length && merged[merged.length - 1] === l && !l.includes('['))) merged.push(l);
  return { url: location.href, title: document.title, lines: merged, meta };
}
