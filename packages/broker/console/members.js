// Members: who receives each subscription's messages, and how that goes — a push host's backoff and last error, what
// is in flight. From GET /mmmq/subscriptions, refreshed every 2 s.
import { api } from './api.js';
import { dataTable } from './data-table.js';
import { formatTime, h } from './dom.js';
import { every } from './poll.js';

/** How often the table is refreshed. */
const POLL_MS = 2000;

export async function membersPage(main) {
  const members = membersTable();
  const connections = connectionsTable();
  const summary = h('p', { class: 'hint', 'aria-live': 'polite' });
  const streamSummary = h('p', { class: 'hint', 'aria-live': 'polite' });
  main.replaceChildren(
    h('h1', {}, 'Members'),
    h(
      'p',
      {},
      'One row per push host of each subscription, with its backoff and last error. A subscription without push hosts is ',
      'read by pull fetches or in-process listeners, which the broker keeps no state for between calls: its row shows ',
      'what they hold and, for an exclusive consumer, the member receiving now.',
    ),
    summary,
    members.element,
    h('h2', {}, 'Publish-stream connections'),
    h('p', {}, 'Producers connected over mmmq:// (docs/stream-protocol.md): who, since when, what they sent and the last refusal.'),
    streamSummary,
    connections.element,
  );
  const refresh = async () => {
    const subscriptions = await api('GET', '/mmmq/subscriptions');
    const rows = subscriptions.flatMap(rowsOf);
    const failing = rows.filter((row) => row.backingOffUntil !== undefined || row.state === 'unauthorized').length;
    summary.textContent = `${rows.length} member row(s); ${failing} backing off or refused. Updated ${new Date().toLocaleTimeString('en')}.`;
    members.update(rows);
    const { stream } = await api('GET', '/mmmq/console/data/connections');
    streamSummary.textContent = stream.enabled
      ? `${stream.connections.length} connection(s) open.`
      : 'The publish stream is off on this broker (the stream option).';
    connections.update(stream.connections);
  };
  await refresh();
  return every(POLL_MS, async () => {
    // Not while the focus is in the rows (a link or a selection): redrawing them would take it away.
    if (!document.activeElement?.closest('tbody')) await refresh();
  });
}

function rowsOf(subscription) {
  const common = { consumerId: subscription.consumerId, topic: subscription.topic, inFlight: subscription.leased };
  if (subscription.members.length === 0) {
    return [{ ...common, member: subscription.activeMember ?? '—', kind: 'pull or in-process', state: subscription.state }];
  }
  return subscription.members.map((member) => ({ ...common, ...member, member: member.host, kind: 'push' }));
}

function membersTable() {
  return dataTable({
    caption: 'Members of each subscription',
    filterLabel: 'Filter members',
    empty: 'No subscriptions: add a dispatcher.',
    sortBy: 5,
    descending: true,
    columns: [
      { label: 'Member', value: (row) => row.member },
      { label: 'Kind', value: (row) => row.kind },
      { label: 'Consumer', value: (row) => row.consumerId },
      { label: 'Topic', value: (row) => row.topic },
      { label: 'State', value: (row) => stateOf(row), cell: (row) => badge(row) },
      { label: 'Failed in a row', number: true, value: (row) => row.failedPushes },
      { label: 'Backoff until', value: (row) => row.backingOffUntil, cell: (row) => backoffOf(row) },
      { label: 'In flight (subscription)', number: true, value: (row) => row.inFlight },
      { label: 'Batch limit', number: true, value: (row) => row.batchLimit },
      {
        label: 'Last error',
        value: (row) => row.lastError,
        cell: (row) =>
          row.lastError ? h('span', {}, row.lastError, h('br'), h('span', { class: 'hint' }, formatTime(row.lastErrorAt))) : '—',
      },
    ],
  });
}

function connectionsTable() {
  return dataTable({
    caption: 'Open publish-stream connections',
    filterLabel: 'Filter connections',
    empty: 'No producer is connected over the publish stream.',
    sortBy: 3,
    descending: true,
    columns: [
      { label: 'Peer', value: (row) => row.peer },
      { label: 'Client', value: (row) => row.client ?? 'not authenticated yet' },
      { label: 'Open since', value: (row) => row.openedAt, cell: (row) => formatTime(row.openedAt) },
      { label: 'Requests', number: true, value: (row) => row.requests },
      { label: 'Unanswered', number: true, value: (row) => row.unanswered },
      { label: 'Refused', number: true, value: (row) => row.failures },
      {
        label: 'Last refusal',
        value: (row) => row.lastError,
        cell: (row) =>
          row.lastError
            ? h(
                'span',
                {},
                row.fenced ? `${row.lastError} (fenced: later requests refused)` : row.lastError,
                h('br'),
                h('span', { class: 'hint' }, formatTime(row.lastErrorAt)),
              )
            : '—',
      },
    ],
  });
}

function stateOf(row) {
  if (row.state === 'unauthorized') return 'refused (signature)';
  if (row.kind !== 'push') return row.state;
  return row.backingOffUntil ? 'backing off' : 'delivering';
}

function badge(row) {
  const state = stateOf(row);
  const tone = state === 'delivering' ? 'good' : state === 'backing off' ? 'wait' : state.startsWith('refused') ? 'bad' : '';
  return h('span', { class: `badge ${tone}` }, state);
}

/** When the backoff ends, and in how long from now. */
function backoffOf(row) {
  if (!row.backingOffUntil) return '—';
  const seconds = Math.max(0, Math.round((Date.parse(row.backingOffUntil) - Date.now()) / 1000));
  return h('span', {}, formatTime(row.backingOffUntil), h('br'), h('span', { class: 'hint' }, `in ${seconds} s`));
}
