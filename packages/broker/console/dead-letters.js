// Dead letters of each consumer: browse them with their failure headers, redrive some or all, purge them.
import { api, segment } from './api.js';
import { confirmDialog, field, formatNumber, h, statusLine, table } from './dom.js';
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
    const moving = `Redrive all dead letters of ${consumerId}? They are moved: each is handed back once and leaves this list; those that fail again come back as new dead letters.`;
    if (ids === undefined && !confirm(moving)) return;
    try {
      const { redriven } = await api('POST', `/mmmq/dead-letters/${segment(consumerId)}/redrive`, ids === undefined ? {} : { ids });
      if (ids !== undefined) return status.say(`Redrove ${what}: ${redriven} queued for redelivery to ${consumerId}.`);
      status.say(`Redrove ${what}: ${redriven} moved for redelivery to ${consumerId}; they left the list.`);
      await load(0);
    } catch (error) {
      status.say(`Redriving ${what} failed: ${error.message}`, true);
    }
  };
  // Purges only up to what the page showed (by default): dead letters arriving meanwhile are not purged unseen.
  const purge = async (page) => {
    const below = h('input', { type: 'number', min: page.startOffset, max: page.total, step: 1, value: page.total, required: true });
    const confirmed = await confirmDialog({
      title: `Purge dead letters of ${consumerId}?`,
      text:
        `Purged dead letters are deleted for good: they can no longer be listed or redriven. ` +
        `Kept now: ${formatNumber(page.total - page.startOffset)} (offsets ${page.startOffset} to ${page.total - 1}).`,
      confirmLabel: 'Purge',
      controls: [field('Purge the dead letters below offset', below, `Default ${page.total}: every dead letter listed now.`)],
    });
    if (!confirmed) return status.say('Nothing purged.');
    try {
      const result = await api('POST', `/mmmq/dead-letters/${segment(consumerId)}/purge`, { before: Number(below.value) });
      status.say(
        `Purged ${result.purged} dead letter${result.purged === 1 ? '' : 's'}; the oldest kept is at offset ${result.startOffset}.`,
      );
      await load(result.startOffset);
    } catch (error) {
      status.say(`Purging failed: ${error.message}`, true);
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
      h('p', {}, keptText(page, from)),
      messagesTable(page.deadLetters, [], `Dead letters of ${consumerId}, oldest first`, [select]),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            disabled: from <= page.startOffset,
            onclick: () => void load(Math.max(page.startOffset, from - PAGE_SIZE)),
          },
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
        h(
          'button',
          { type: 'button', class: 'danger', disabled: page.startOffset >= page.total, onclick: () => void purge(page) },
          'Purge…',
        ),
      ),
    );
  };
  main.replaceChildren(
    h('h1', {}, `Dead letters of ${consumerId}`),
    h('p', {}, h('a', { href: '#/dead-letters' }, 'All consumers')),
    h(
      'p',
      { class: 'hint' },
      'The mmmq-dlq-* headers say why each failed. Redrive selected hands copies back to the consumer (through ' +
        `__redrive.${consumerId}); those dead letters stay listed. Redrive all moves every dead letter listed: each is ` +
        'handed back once and leaves the list, and those that fail again come back as new dead letters, so redriving ' +
        'again never hands one back twice. Purge deletes them for good, after asking.',
    ),
    status.element,
    results,
  );
  await load(0);
}

function keptText(page, from) {
  const kept = page.total - page.startOffset;
  if (kept === 0)
    return page.startOffset > 0 ? `No dead letters kept (offsets below ${page.startOffset} were purged).` : 'No dead letters.';
  return `Dead letters kept: ${formatNumber(kept)} (offsets ${page.startOffset} to ${page.total - 1}); showing offsets from ${Math.max(from, page.startOffset)}.`;
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
        formatNumber(page.total - page.startOffset),
      ]),
      'No consumers.',
    ),
  );
}
