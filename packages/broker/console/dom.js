// Builds the pages from elements and text nodes only: nothing the broker returns is ever parsed as HTML.

/**
 * An element: `attributes` are set as attributes (true: present, false/null/undefined: absent), except `on…`
 * functions, which become event listeners; children are nodes or text (null skipped, arrays flattened).
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function' && name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.append(child);
    else if (child !== null && child !== undefined) element.append(document.createTextNode(String(child)));
  }
}

let ids = 0;

/** A unique id for a form control, so its label can point at it. */
export function uniqueId(prefix) {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** A labelled form control; `hint` is tied to it with `aria-describedby`. */
export function field(label, control, hint) {
  if (!control.id) control.id = uniqueId('field');
  const parts = [h('label', { for: control.id }, label), control];
  if (hint) {
    const hintId = uniqueId('hint');
    control.setAttribute('aria-describedby', hintId);
    parts.push(h('span', { class: 'hint', id: hintId }, hint));
  }
  const isCheck = control.type === 'checkbox';
  return h('div', { class: isCheck ? 'field check' : 'field' }, isCheck ? parts.reverse() : parts);
}

/**
 * A table with a caption and column headers. `columns`: `{ label, number? }`; `rows`: arrays of cells (text or
 * nodes); the first cell of each row is its header.
 */
export function table(caption, columns, rows, empty = 'None.') {
  const head = h(
    'thead',
    {},
    h(
      'tr',
      {},
      columns.map((column) => h('th', { scope: 'col' }, column.label)),
    ),
  );
  const body = h(
    'tbody',
    {},
    rows.length === 0
      ? h('tr', {}, h('td', { colspan: columns.length }, empty))
      : rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((cell, i) =>
              i === 0 ? h('th', { scope: 'row' }, cell) : h('td', columns[i].number ? { class: 'number' } : {}, cell),
            ),
          ),
        ),
  );
  return h('div', { class: 'scroll' }, h('table', {}, h('caption', {}, caption), head, body));
}

/** JSON shown as preformatted text. */
export function json(value) {
  return h('pre', {}, JSON.stringify(value, null, 2));
}

/** A line that says what happened (`role="status"`, read out by screen readers). */
export function statusLine() {
  const line = h('p', { class: 'message', role: 'status' });
  return {
    element: line,
    say(text, isError = false) {
      line.textContent = text;
      line.classList.toggle('error', isError);
    },
  };
}

export function formatNumber(value) {
  return typeof value === 'number' ? value.toLocaleString('en') : '—';
}

/** Messages per second, one decimal; a dash before there are two samples. */
export function formatRate(value) {
  return value === undefined ? '—' : value.toLocaleString('en', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes) {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** A time (epoch ms or ISO text) as ISO text, or a dash. */
export function formatTime(value) {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}

/**
 * Asks before a destructive action in a modal `<dialog>` (focus moves into it and stays there, Escape cancels),
 * labelled by its heading and described by its text. `controls` go between the text and the buttons. Resolves
 * true when `confirmLabel` is pressed, false when cancelled.
 */
export function confirmDialog({ title, text, confirmLabel, controls = [] }) {
  const titleId = uniqueId('dialog-title');
  const textId = uniqueId('dialog-text');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': titleId, 'aria-describedby': textId },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: titleId }, title),
      h('p', { id: textId }, text),
      controls,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', value: 'cancel', class: 'secondary', autofocus: true }, 'Cancel'),
        h('button', { type: 'submit', value: 'confirm', class: 'danger' }, confirmLabel),
      ),
    ),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'confirm');
    });
    dialog.showModal();
  });
}
