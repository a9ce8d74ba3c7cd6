// Topics: what exists, how far each log reaches, and its messages by offset.
import { api, segment } from './api.js';
import { dataTable } from './data-table.js';
import { topicCharts } from './topic-charts.js';
import { field, formatBytes, formatNumber, formatTime, h, json, statusLine, table } from './dom.js';

/** Messages per page unless the form says otherwise. */
const DEFAULT_PAGE_SIZE = 20;

export async function topicsPage(main) {
  const { topics } = await api('GET', '/mmmq/topics');
  const list = dataTable({
    caption: 'Topics and their logs',
    filterLabel: 'Filter topics',
    empty: 'No topics yet: publish a message.',
    columns: [
      { label: 'Topic', value: (t) => t.name, cell: (t) => h('a', { href: `#/topics/${encodeURIComponent(t.name)}` }, t.name) },
      { label: 'Start offset', number: true, value: (t) => t.startOffset },
      { label: 'Tail offset', number: true, value: (t) => t.tailOffset },
      { label: 'Messages', number: true, value: (t) => t.messages },
      { label: 'Size', number: true, value: (t) => t.bytes, cell: (t) => formatBytes(t.bytes) },
      { label: 'Segments', number: true, value: (t) => t.segments },
      { label: 'Writable', value: (t) => (t.writable ? 'yes' : 'no') },
      { label: 'Consumers', value: (t) => t.subscriptions.map((s) => s.consumerId).join(', ') || '—' },
    ],
  });
  list.update(topics);
  main.replaceChildren(
    h('h1', {}, 'Topics'),
    h('p', { class: 'hint' }, 'Topics starting with __dlq. and __redrive. belong to the broker: dead letters and redriven messages.'),
    list.element,
  );
}

export async function topicPage(main, name) {
  const topic = await api('GET', `/mmmq/topics/${segment(name)}`);
  const from = h('input', { type: 'number', min: 0, step: 1, value: topic.startOffset, required: true });
  const limit = h('input', { type: 'number', min: 1, max: 1000, step: 1, value: DEFAULT_PAGE_SIZE, required: true });
  const status = statusLine();
  const results = h('div');
  const charts = topicCharts(topic.name);
  const browse = async (start) => {
    from.value = String(start);
    const page = await api('GET', `/mmmq/topics/${segment(name)}/messages?from=${Number(from.value)}&limit=${Number(limit.value)}`);
    const size = Number(limit.value);
    status.say(
      page.messages.length === 0
        ? `No messages from offset ${start} (the log holds ${page.startOffset} to ${page.tailOffset - 1}).`
        : `Offsets ${page.messages[0].offset} to ${page.messages[page.messages.length - 1].offset} of ${page.startOffset} to ${page.tailOffset - 1}.`,
    );
    results.replaceChildren(
      messagesTable(page.messages, page.corrupt, undefined, [scheduledColumn(page.messages, name, status, () => browse(start))]),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            disabled: start <= page.startOffset,
            onclick: () => void browse(Math.max(page.startOffset, start - size)),
          },
          'Previous page',
        ),
        h(
          'button',
          { type: 'button', class: 'secondary', disabled: page.nextFrom >= page.tailOffset, onclick: () => void browse(page.nextFrom) },
          'Next page',
        ),
      ),
    );
  };
  main.replaceChildren(
    h('h1', {}, `Topic ${topic.name}`),
    h('p', {}, h('a', { href: '#/topics' }, 'All topics')),
    table(
      'The log',
      [
        { label: 'Start offset' },
        { label: 'Tail offset', number: true },
        { label: 'Messages', number: true },
        { label: 'Size', number: true },
        { label: 'Segments', number: true },
        { label: 'Writable' },
        { label: 'Purged below', number: true },
      ],
      [
        [
          formatNumber(topic.startOffset),
          formatNumber(topic.tailOffset),
          formatNumber(topic.messages),
          formatBytes(topic.bytes),
          formatNumber(topic.segments),
          topic.writable ? 'yes' : 'no',
          topic.purgedBelow > 0 ? formatNumber(topic.purgedBelow) : '—',
        ],
      ],
    ),
    charts.element,
    retentionTable(topic),
    table(
      'Consumers reading it',
      [{ label: 'Consumer' }, { label: 'Position', number: true }, { label: 'Lag', number: true }, { label: 'State' }],
      topic.subscriptions.map((s) => [s.consumerId, formatNumber(s.position), formatNumber(s.lag), s.state]),
      'No consumer reads this topic.',
    ),
    h('h2', { id: 'browse-heading' }, 'Messages'),
    h(
      'form',
      {
        class: 'inline',
        'aria-labelledby': 'browse-heading',
        onsubmit: (event) => {
          event.preventDefault();
          void browse(Number(from.value));
        },
      },
      field('From offset', from),
      field('Messages per page', limit),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Show messages')),
    ),
    status.element,
    results,
  );
  await browse(topic.startOffset);
  return charts.start();
}

/** The topic's retention policy (the broker's `topics` option): what it keeps, and what it has kept past it. */
function retentionTable(topic) {
  const { ms, bytes, whenNeeded } = topic.retention;
  return table(
    'Retention',
    [{ label: 'Keeps messages for' }, { label: 'Keeps at most' }, { label: 'When a consumer still needs them' }, { label: 'Held past it' }],
    [
      [
        ms === null ? 'forever' : formatDuration(ms),
        bytes === null ? 'no size limit' : formatBytes(bytes),
        whenNeeded === 'keep' ? 'keep (until consumed)' : 'delete anyway',
        formatBytes(topic.retentionHeldBytes),
      ],
    ],
  );
}

const DURATION_UNITS = [
  ['day', 24 * 60 * 60 * 1000],
  ['hour', 60 * 60 * 1000],
  ['minute', 60 * 1000],
  ['second', 1000],
];

/** Milliseconds in the largest unit that divides them (`7 days`), else in ms. */
function formatDuration(ms) {
  for (const [unit, size] of DURATION_UNITS) {
    if (ms >= size && ms % size === 0) return `${formatNumber(ms / size)} ${unit}${ms === size ? '' : 's'}`;
  }
  return `${formatNumber(ms)} ms`;
}

/**
 * A column with a Cancel button on each scheduled message not due yet (and not cancelled on this page already): it
 * cancels it (POST /mmmq/scheduled/cancel, by id and offset) after asking, then shows the page again.
 */
function scheduledColumn(messages, topic, status, reload) {
  const cancelled = new Set(messages.filter((message) => message.cancels !== undefined).map((message) => message.cancels));
  const cancel = async (message) => {
    if (!confirm(`Cancel the scheduled message ${message.id} (offset ${message.offset})? It is never delivered then.`)) return;
    try {
      const { cancelled: done } = await api('POST', '/mmmq/scheduled/cancel', { topic, id: message.id, offset: message.offset });
      // Shown again first: the page's own status line would replace the answer.
      await reload();
      status.say(`Cancelled ${done.id} (offset ${done.offset}), which was due at ${formatTime(done.dueAt)}.`);
    } catch (error) {
      status.say(`Not cancelled: ${error.message}`, true);
    }
  };
  return {
    label: 'Scheduled',
    cell: (message) => {
      if (message.dueAt === undefined || message.id === undefined) return '—';
      if (cancelled.has(message.offset)) return 'cancelled';
      if (message.dueAt <= Date.now()) return 'due';
      return h(
        'button',
        { type: 'button', class: 'danger', 'aria-label': `Cancel scheduled message ${message.id}`, onclick: () => void cancel(message) },
        'Cancel',
      );
    },
  };
}

/** Stored messages with their headers and content (shared with the dead-letter page). */
export function messagesTable(messages, corrupt = [], caption = 'Messages, oldest first', leading = []) {
  const rows = messages.map((message) => [
    formatNumber(message.offset),
    ...leading.map((column) => column.cell(message)),
    message.id ?? '—',
    message.topic,
    formatTime(message.publishedAt),
    message.priority === undefined ? '4' : String(message.priority),
    formatTime(message.expiresAt),
    formatTime(message.dueAt),
    json(message.headers),
    json(message.content),
  ]);
  return h(
    'div',
    {},
    table(
      caption,
      [
        { label: 'Offset', number: true },
        ...leading,
        { label: 'Id' },
        { label: 'Topic' },
        { label: 'Published at' },
        { label: 'Priority' },
        { label: 'Expires at' },
        { label: 'Due at (scheduled)' },
        { label: 'Headers' },
        { label: 'Content' },
      ],
      rows,
      'No messages here.',
    ),
    corrupt.length > 0 ? h('p', { class: 'message error' }, `Damaged entries skipped at offsets ${corrupt.join(', ')}.`) : null,
  );
}
