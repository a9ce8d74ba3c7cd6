// A table that keeps its sort order and filter while its rows are replaced by each refresh.
import { h, uniqueId } from './dom.js';

/**
 * `columns`: `{ label, number?, value(item), cell?(item) }` — `value` is what the column sorts by (and shows, without
 * `cell`); the first column's cells are the rows' headers. Returns the element and `update(items)`, which redraws the
 * rows with the sort (click a column's header; again for descending) and the filter (any cell's text) kept.
 */
export function dataTable({
  caption,
  columns,
  empty = 'None.',
  sortBy = 0,
  descending = false,
  filterLabel = `Filter ${caption.toLowerCase()}`,
}) {
  let items = [];
  let sort = { column: sortBy, descending };
  const body = h('tbody');
  const count = h('span', { class: 'hint', 'aria-live': 'polite' });
  const filter = h('input', { type: 'search', autocomplete: 'off', spellcheck: 'false', placeholder: 'Filter rows' });
  filter.addEventListener('input', () => render());
  const headers = columns.map((column, index) =>
    h(
      'th',
      { scope: 'col', class: column.number ? 'number' : null },
      h('button', { type: 'button', class: 'sort', onclick: () => sortOn(index) }, column.label, h('span', { 'aria-hidden': 'true' })),
    ),
  );
  const filterId = uniqueId('filter');
  filter.id = filterId;
  const element = h(
    'div',
    { class: 'data-table' },
    h('div', { class: 'table-tools' }, h('label', { for: filterId }, filterLabel), filter, count),
    h('div', { class: 'scroll' }, h('table', {}, h('caption', {}, caption), h('thead', {}, h('tr', {}, headers)), body)),
  );

  function sortOn(index) {
    sort = { column: index, descending: sort.column === index ? !sort.descending : columns[index].number === true };
    render();
  }

  function render() {
    headers.forEach((header, index) => {
      const sorted = index === sort.column;
      if (sorted) header.setAttribute('aria-sort', sort.descending ? 'descending' : 'ascending');
      else header.removeAttribute('aria-sort');
      header.querySelector('span').textContent = sorted ? (sort.descending ? ' ▼' : ' ▲') : '';
    });
    const needle = filter.value.trim().toLowerCase();
    const rows = items
      .map((item) => ({ item, cells: columns.map((column) => (column.cell ? column.cell(item) : format(column, column.value(item)))) }))
      .filter(({ cells }) => needle === '' || cells.some((cell) => textOf(cell).toLowerCase().includes(needle)));
    const { value } = columns[sort.column];
    rows.sort((a, b) => compare(value(a.item), value(b.item), sort.descending));
    count.textContent = needle === '' ? `${items.length} row${items.length === 1 ? '' : 's'}` : `${rows.length} of ${items.length} rows`;
    body.replaceChildren(
      ...(rows.length === 0
        ? [h('tr', {}, h('td', { colspan: columns.length }, items.length === 0 ? empty : 'No row matches the filter.'))]
        : rows.map(({ cells }) =>
            h(
              'tr',
              {},
              cells.map((cell, i) =>
                i === 0 ? h('th', { scope: 'row' }, cell) : h('td', columns[i].number ? { class: 'number' } : {}, cell),
              ),
            ),
          )),
    );
  }

  return {
    element,
    update(next) {
      items = next;
      render();
    },
  };
}

function format(column, value) {
  if (value === undefined || value === null) return '—';
  return column.number && typeof value === 'number' ? value.toLocaleString('en') : String(value);
}

function textOf(cell) {
  return cell instanceof Node ? (cell.textContent ?? '') : String(cell);
}

/** Missing values last either way; numbers by value, text in natural order (`topic.2` before `topic.10`). */
function compare(a, b, descending) {
  const missing = (value) => value === undefined || value === null || Number.isNaN(value);
  if (missing(a) || missing(b)) return missing(a) - missing(b);
  const order = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b), 'en', { numeric: true });
  return descending ? -order : order;
}
