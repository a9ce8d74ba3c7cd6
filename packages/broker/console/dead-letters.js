// Dead letters of each consumer: browse them with their failure headers, redrive some or all.
import { api, segment } from './api.js';
import { formatNumber, h, statusLine, table } from './dom.js';
import { messagesTable } from './topics.js';

/** Dead letters per page. */
const PAGE_SIZE = 20;

export async function deadLettersPage(main, consumerId) {
  if (consumerId === undefined) return consumersPage(main);
  const status = statusLine();
  const results = h('div');
  let selected = new Set();
  const redrive = async (ids) => {
    const what = ids === undefined ? 'all dead letters' : `${ids.length} dead letter${ids.length === 1 ? '' : 's'}`;
    if (ids === undefined && !confirm(`Redrive all dead letters of ${consumerId}?`)) return;
    try {
      const { redriven } = await api('POST', `/mmmq/dead-letters/${segment(consumerId)}/redrive`, ids === undefined ? {} : { ids });
      status.say(`Redrove ${what}: ${redriven} queued for redelivery to ${consumerId}.`);
    } catch (error) {
      status.say(`Redriving ${what} failed: ${error.message}`, true);
    }
  };
  const load = async (from) => {
    const page = await api('GET', `/mmmq/dead-letters/${segment(consumerId)}?from=${from}&limit=${PAGE_SIZE}`);
    selected = new Set();
    const select = {
      label: 'Select',
      cell: (letter) =>
        letter.id === null
          ? '—'
          : h('input', {
              type: 'checkbox',
              'aria-label': `Select dead letter ${letter.id}`,
              onchange: (event) => (event.target.checked ? selected.add(letter.id) : selected.delete(letter.id)),
            }),
    };
    results.replaceChildren(
      h('p', {}, `Dead letters in all: ${formatNumber(page.total)}; showing offsets from ${from}.`),
      messagesTable(page.deadLetters, [], `Dead letters of ${consumerId}, oldest first`, [select]),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'secondary', disabled: from === 0, onclick: () => void load(Math.max(0, from - PAGE_SIZE)) },
          'Previous page',
        ),
        h(
          'button',
          { type: 'button', class: 'secondary', disabled: page.nextFrom >= page.total, onclick: () => void load(page.nextFrom) },
          'Next page',
        ),
        h(
          'button',
          {
            type: 'button',
            onclick: () => (selected.size === 0 ? status.say('Select dead letters first.', true) : void redrive([...selected])),
          },
          'Redrive selected',
        ),
        h('button', { type: 'button', class: 'danger', onclick: () => void redrive(undefined) }, 'Redrive all'),
      ),
    );
  };
  main.replaceChildren(
    h('h1', {}, `Dead letters of ${consumerId}`),
    h('p', {}, h('a', { href: '#/dead-letters' }, 'All consumers')),
    h(
      'p',
      { class: 'hint' },
      'The mmmq-dlq-* headers say why each failed. Redrive hands copies back to the consumer (through __redrive.' +
        `${consumerId}); the dead letters stay listed. Purging them is not available yet.`,
    ),
    status.element,
    results,
  );
  await load(0);
}

async function consumersPage(main) {
  const dispatchers = await api('GET', '/mmmq/dispatchers');
  const pages = await Promise.all(dispatchers.map((d) => api('GET', `/mmmq/dead-letters/${segment(d.consumerId)}?limit=1`)));
  main.replaceChildren(
    h('h1', {}, 'Dead letters'),
    table(
      'Dead letters by consumer',
      [{ label: 'Consumer' }, { label: 'Dead letters', number: true }],
      pages.map((page) => [
        h('a', { href: `#/dead-letters/${encodeURIComponent(page.consumerId)}` }, page.consumerId),
        formatNumber(page.total),
      ]),
      'No consumers.',
    ),
  );
}
